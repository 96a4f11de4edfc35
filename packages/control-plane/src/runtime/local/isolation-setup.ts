import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Logger } from "pino";
import type { ControlPlaneConfig } from "../../config.js";
import { findProgram, WorkspaceIsolation } from "./isolation.js";

/**
 * The local runtime's isolation as configured: workspace users when asked or (auto) when running
 * as root; the bubblewrap sandbox when asked or (auto) when `bwrap` is installed and works here.
 * `runtime = false` (no local runtime): only the data directory's modes matter.
 */
export function workspaceIsolation(
  config: ControlPlaneConfig,
  processEnv: Readonly<Record<string, string | undefined>>,
  logger: Logger,
  runtime = true,
  agentCommand: readonly string[] = [],
): WorkspaceIsolation {
  const { isolation } = config;
  const root = process.getuid?.() === 0;
  if (runtime && isolation.workspaceUsers === "on" && !root) {
    throw new Error("BERTH_WORKSPACE_USERS=on needs the control plane to run as root.");
  }
  let bwrap = runtime && isolation.sandbox !== "off" ? findProgram("bwrap", processEnv.PATH) : null;
  if (bwrap && !sandboxWorks(bwrap)) {
    if (isolation.sandbox === "on")
      throw new Error(`BERTH_SANDBOX=on but ${bwrap} cannot start a sandbox here.`);
    logger.warn({ bwrap }, "bubblewrap cannot start a sandbox here; the local runtime runs without one");
    bwrap = null;
  }
  if (runtime && isolation.sandbox === "on" && !bwrap) {
    throw new Error("BERTH_SANDBOX=on but bubblewrap (bwrap) is not installed.");
  }
  if (runtime && !bwrap) {
    logger.warn(
      "bubblewrap is not installed: builds and agent servers run without a sandbox (see the README on isolation)",
    );
  }
  let users = runtime && (isolation.workspaceUsers === "on" || (isolation.workspaceUsers === "auto" && root));
  if (users) {
    // Workspace users must reach the data directory (unless the sandbox maps it in as root) and
    // Berth's own agent server program. "auto" falls back to the control plane's user, loudly,
    // rather than letting every build fail on a path it cannot open; "on" refuses to start.
    const program = agentCommand.find((part) => part.endsWith(".js"));
    const blocked = [...(bwrap ? [] : [config.dataDir]), ...(program ? [program] : [])]
      .map((target) => ({ target, directory: closedAncestor(target) }))
      .find((found) => found.directory !== null);
    if (blocked) {
      const why = `workspace users cannot reach ${blocked.target} through ${blocked.directory} (no o+x)`;
      if (isolation.workspaceUsers === "on") {
        throw new Error(
          `BERTH_WORKSPACE_USERS=on but ${why}: open that directory, install bubblewrap, or move the data directory.`,
        );
      }
      logger.warn(
        { directory: blocked.directory, target: blocked.target },
        `${why}: builds and agent servers run as the control plane's user (open that directory, install bubblewrap or set BERTH_WORKSPACE_USERS=on to require workspace users)`,
      );
      users = false;
    }
  }
  return new WorkspaceIsolation({
    dataDir: config.dataDir,
    workspaceUsers: users,
    uidBase: isolation.uidBase,
    bwrapPath: bwrap,
    setprivPath: root ? findProgram("setpriv", processEnv.PATH) : null,
    npmCacheSeed: isolation.npmCacheSeed,
    berthFiles: agentCommand.filter((part) => part.endsWith(".js")).map(installRoot),
  });
}

/**
 * The directory Berth's program resolves its packages from: the outermost ancestor whose
 * `node_modules` holds `@langchain` (a checkout's root, where npm hoists them), else the
 * program's own folder.
 */
function installRoot(program: string): string {
  let root = path.dirname(program);
  for (let dir = root; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "node_modules", "@langchain"))) root = dir;
    if (path.dirname(dir) === dir) return root;
  }
}

/** Whether bubblewrap can set up the namespaces it needs here (user namespaces may be off). */
function sandboxWorks(bwrap: string): boolean {
  const result = spawnSync(
    bwrap,
    ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--", "/bin/true"],
    { stdio: "ignore", timeout: 10_000 },
  );
  return result.status === 0;
}

/**
 * The first directory above `file` others cannot traverse (no o+x), or null. Exported for the tests
 * of isolation, whose suites depend on whether the checkout is reachable by workspace users.
 */
export function closedAncestor(file: string): string | null {
  for (let current = path.dirname(file); current !== path.dirname(current); current = path.dirname(current)) {
    try {
      if ((fs.statSync(current).mode & 0o001) === 0) return current;
    } catch {
      return current;
    }
  }
  return null;
}
