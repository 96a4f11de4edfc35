// The bubblewrap command line a workspace's builds and agent servers run under (WorkspaceIsolation).
import fs from "node:fs";
import path from "node:path";

/** What a sandboxed process may see beside the read-only system. */
export interface SandboxMounts {
  /** Directories it may write (its build directory, its data, its HOME). */
  writable: string[];
  /** Directories it may read (the finished build an agent server runs). */
  readable: string[];
  /** The sandbox outlives a dead control plane (agent servers) or dies with it (builds). */
  dieWithParent: boolean;
}

/**
 * bubblewrap arguments: the system read-only, a private /tmp and /dev, the control plane's data
 * directory replaced by an empty tmpfs, then only this workspace's own directories (and its HOME,
 * when it has one of its own) put back.
 */
export function sandboxArgs(
  dataDir: string,
  home: string | null,
  mounts: SandboxMounts,
  berthFiles: readonly string[] = [],
): string[] {
  const args = [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--perms",
    "1777",
    "--tmpfs",
    "/tmp",
  ];
  // Berth installed (or checked out) under /tmp: the private /tmp must not hide its program. The
  // data directory's tmpfs below still covers it if it lies inside. The directories bubblewrap
  // makes on the way to the mount would be root's 0700, which the workspace user cannot cross.
  const madeInTmp = new Set<string>();
  for (const dir of berthFiles) {
    if (!isUnder(dir, "/tmp")) continue;
    args.push(...openAncestors("/tmp", dir, madeInTmp), "--ro-bind", dir, dir);
  }
  // No --new-session: the process group is how the runtime stops everything the command started.
  args.push("--unshare-pid", "--unshare-ipc", "--unshare-uts");
  if (mounts.dieWithParent) args.push("--die-with-parent");
  args.push("--tmpfs", dataDir);
  const writable = home ? [...mounts.writable, home] : mounts.writable;
  // bubblewrap would create the directories leading to a mount point with mode 0700 (root's), out
  // of the workspace user's reach: they are made 0755 first (they hold nothing but the mounts).
  const made = new Set<string>();
  for (const dir of [...mounts.readable, ...writable]) {
    if (isUnder(dir, dataDir)) args.push(...openAncestors(dataDir, dir, made));
  }
  for (const dir of mounts.readable) args.push("--ro-bind", dir, dir);
  for (const dir of writable) args.push("--bind", dir, dir);
  return args;
}

/**
 * bubblewrap arguments that make the directories between `root` (a tmpfs) and `dir` 0755 before
 * something is mounted at `dir`: bubblewrap would make them root's 0700. `made` skips repeats.
 */
function openAncestors(root: string, dir: string, made: Set<string>): string[] {
  const out: string[] = [];
  const parts = path.relative(root, dir).split(path.sep).slice(0, -1);
  for (let i = 1; i <= parts.length; i += 1) {
    const ancestor = path.join(root, ...parts.slice(0, i));
    if (made.has(ancestor)) continue;
    made.add(ancestor);
    out.push("--perms", "0755", "--dir", ancestor);
  }
  return out;
}

function isUnder(dir: string, parent: string): boolean {
  const rel = path.relative(parent, dir);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel);
}

/** The first executable `name` (e.g. `bwrap`) on PATH, or null. */
export function findProgram(name: string, pathVariable: string | undefined): string | null {
  for (const dir of (pathVariable ?? "/usr/bin:/bin").split(":")) {
    const candidate = path.join(dir || ".", name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}
