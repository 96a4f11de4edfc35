import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { type RevisionJob, RuntimeFailure } from "../types.js";

// What a build checks and provides in a revision's source tree: the graph configuration, the env
// file it names, the package it belongs to, links that lead outside it, and a template's fingerprint.

/** The closest directory with a package.json from `dir` up to `root`. */
export function nearestPackageDir(dir: string, root: string): string | null {
  for (let current = dir; ; current = path.dirname(current)) {
    if (fs.existsSync(path.join(current, "package.json"))) return current;
    if (current === root || !current.startsWith(root)) return null;
  }
}

/** Whether `file` exists, a dangling link included. */
export function lexists(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `target`, links resolved, is inside `root`: a cloned repository may link anywhere, and
 * the control plane must not read or write through such a link for it.
 */
export function isInside(target: string, root: string): boolean {
  try {
    const real = fs.realpathSync(target);
    const base = fs.realpathSync(root);
    return real === base || real.startsWith(base + path.sep);
  } catch {
    return false;
  }
}

/** A graph configuration must be JSON naming at least one graph (the agent server would refuse it). */
export function checkGraphConfig(file: string, shown: string): { env?: unknown } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw new RuntimeFailure(`${shown} is not valid JSON: ${(error as Error).message}`, "build");
  }
  const graphs = (parsed as { graphs?: unknown } | null)?.graphs;
  if (!graphs || typeof graphs !== "object" || Object.keys(graphs).length === 0) {
    throw new RuntimeFailure(`${shown} names no graphs ("graphs": {"id": "./file.ts:export"}).`, "build");
  }
  return parsed as { env?: unknown };
}

/**
 * A graph configuration may name an env file (`"env": ".env"`) that is, rightly, never uploaded:
 * a deployment's environment comes from its secrets. An empty file stands in so the agent server
 * starts.
 */
export function provideEnvFile(job: RevisionJob, src: string, configDir: string, env: unknown): void {
  if (typeof env !== "string") return;
  const file = path.resolve(configDir, env);
  if (!file.startsWith(configDir + path.sep) || lexists(file)) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // The source (a git clone) may hold links: the file is written only where it really is inside.
  if (!isInside(path.dirname(file), src)) return;
  fs.writeFileSync(file, "", { flag: "wx" });
  job.log("build", "INFO", `${env} is not in the source: the deployment's secrets are its environment.`);
}

/** Names, sizes and times of a directory's files (not node_modules): changes when the template does. */
export function fingerprint(dir: string): string {
  const hash = createHash("sha256");
  const walk = (current: string) => {
    for (const entry of fs
      .readdirSync(current, { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        const stat = fs.statSync(full);
        hash.update(`${path.relative(dir, full)}:${stat.size}:${stat.mtimeMs}\n`);
      }
    }
  };
  walk(dir);
  return hash.digest("hex").slice(0, 16);
}
