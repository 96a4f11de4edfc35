import { spawn } from "node:child_process";
import { checkedGitTarget } from "./git-target.js";

/** The environment git runs with: never prompts for credentials, ignores the user's global config. */
function gitEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return {
    PATH: base.PATH ?? "/usr/bin:/bin",
    HOME: base.HOME ?? "/tmp",
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_ASKPASS: "/bin/false",
    SSH_ASKPASS: "/bin/false",
    LANG: "C",
  };
}

interface GitResult {
  stdout: string;
  stderr: string;
}

/**
 * Runs `git` with an argument array (no shell: a repository URL or ref is never interpreted), a
 * time limit and optional progress lines from stderr.
 */
function git(
  args: string[],
  options: { cwd?: string; timeoutMs: number; onLine?: (line: string) => void },
): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, {
      cwd: options.cwd,
      env: gitEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let partial = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      if (!options.onLine) return;
      const lines = (partial + chunk).split(/\r|\n/);
      partial = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) options.onLine(line.trim());
    });
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve({ stdout, stderr });
      const why =
        signal === "SIGKILL" ? `timed out after ${Math.round(options.timeoutMs / 1000)} s` : lastLine(stderr);
      reject(new Error(why || `git ${args[0]} exited with code ${code}`));
    });
  });
}

function lastLine(text: string): string {
  const lines = text.split("\n").filter((l) => l.trim() && !l.startsWith("hint:"));
  return lines.slice(-2).join(" ").trim();
}

/** A branch name becomes `refs/heads/<name>`; `refs/...` refs stay as they are; null is HEAD. */
export function fullRef(ref: string | null): string {
  if (!ref) return "HEAD";
  return ref.startsWith("refs/") ? ref : `refs/heads/${ref}`;
}

/** Parses `git ls-remote` output into the commit of `ref` (a peeled annotated tag wins). */
export function shaFromLsRemote(output: string, ref: string): string | null {
  let direct: string | null = null;
  for (const line of output.split("\n")) {
    const [sha, name] = line.split("\t");
    if (!sha || !name) continue;
    if (name === `${ref}^{}`) return sha;
    if (name === ref) direct = sha;
  }
  return direct;
}

/**
 * The commit `ref` (branch name, `refs/tags/...`, or null for the default branch) points at, or
 * null. An http(s) URL is checked at fetch time (public addresses only, unless `trusted`).
 */
export async function remoteRefSha(options: {
  url: string;
  ref: string | null;
  timeoutMs: number;
  /** URLs on configured git hosts, which may be internal. */
  trusted?: (url: string) => boolean;
}): Promise<string | null> {
  const ref = fullRef(options.ref);
  const patterns = ref === "HEAD" ? ["HEAD"] : [ref, `${ref}^{}`];
  const target = await checkedGitTarget(options.url, { trusted: options.trusted });
  const { stdout } = await git([...target.config, "ls-remote", "--", target.url, ...patterns], {
    timeoutMs: options.timeoutMs,
  });
  return shaFromLsRemote(stdout, ref);
}

/** Clones `ref` of `url` (shallow, one branch) into `destDir` and returns the commit checked out. */
export async function checkoutRef(options: {
  url: string;
  ref: string | null;
  destDir: string;
  timeoutMs: number;
  onLine?: (line: string) => void;
  /** URLs on configured git hosts, which may be internal. */
  trusted?: (url: string) => boolean;
}): Promise<{ commitSha: string }> {
  const target = await checkedGitTarget(options.url, { trusted: options.trusted });
  const args = [...target.config, "clone", "--quiet", "--depth", "1", "--single-branch", "--no-tags"];
  if (options.ref) {
    const name = options.ref.startsWith("refs/tags/")
      ? options.ref.slice("refs/tags/".length)
      : options.ref.startsWith("refs/heads/")
        ? options.ref.slice("refs/heads/".length)
        : options.ref;
    args.push("--branch", name);
  }
  // A file path must be a file:// URL for --depth to apply; `--` ends options (a URL never is one).
  args.push("--", target.url, options.destDir);
  await git(args, { timeoutMs: options.timeoutMs, onLine: options.onLine });
  const { stdout } = await git(["rev-parse", "HEAD"], { cwd: options.destDir, timeoutMs: 10_000 });
  return { commitSha: stdout.trim() };
}
