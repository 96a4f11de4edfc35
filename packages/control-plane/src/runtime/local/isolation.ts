import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { DeploymentLayout } from "./layout.js";

/** The OS identity a workspace's builds and agent servers run as. */
export interface WorkspaceIdentity {
  uid: number;
  gid: number;
  /** The workspace's own HOME (npm cache, tool state), owned by `uid`, mode 0700. */
  home: string;
}

/** What a sandboxed process may see beside the read-only system. */
export interface SandboxMounts {
  /** Directories it may write (its build directory, its data, its HOME). */
  writable: string[];
  /** Directories it may read (the finished build an agent server runs). */
  readable: string[];
  /** The sandbox outlives a dead control plane (agent servers) or dies with it (builds). */
  dieWithParent: boolean;
}

/** A command ready to spawn: program, arguments and the user it runs as. */
export interface LaunchPlan {
  command: string;
  args: string[];
  uid?: number;
  gid?: number;
}

/** How the local runtime separates workspaces from each other and from the control plane. */
export interface IsolationOptions {
  /** The control plane's data directory (database, secrets key, every deployment). */
  dataDir: string;
  /** Run each workspace as its own OS user (needs root). */
  workspaceUsers: boolean;
  /** First uid handed to a workspace; each new workspace takes the next free one. */
  uidBase: number;
  /** The bubblewrap binary, or null when there is no sandbox on this machine (or it is off). */
  bwrapPath: string | null;
  /**
   * `setpriv`, which drops to the workspace's user inside a sandbox bubblewrap set up as root (so
   * the control plane's directories need not be reachable by that user), or null.
   */
  setprivPath: string | null;
  /** An npm cache whose packages a new workspace's own cache starts with (offline installs), or null. */
  npmCacheSeed: string | null;
  /**
   * Berth's own files (its install, with the agent server program and the dependencies templates
   * link to) where the sandbox's private /tmp would hide them: put back read-only.
   */
  berthFiles?: readonly string[];
}

/**
 * The local runtime's boundary between workspaces: a separate uid per workspace (when Berth runs
 * as root) and a bubblewrap sandbox (where installed) in which the control plane's data directory
 * is an empty tmpfs except for the one deployment's own directories.
 */
export class WorkspaceIsolation {
  readonly #usersFile: string;
  readonly #workspacesDir: string;

  constructor(private readonly options: IsolationOptions) {
    this.#usersFile = path.join(options.dataDir, "workspace-users.json");
    this.#workspacesDir = path.join(options.dataDir, "workspaces");
  }

  /** Whether processes run in a bubblewrap sandbox. */
  get sandboxed(): boolean {
    return this.options.bwrapPath !== null;
  }

  /** One line for the logs: what this runtime isolates. */
  describe(identity: WorkspaceIdentity | null): string {
    const who = identity ? `as workspace user ${identity.uid}` : "as the control plane's user";
    return `${who}, ${this.sandboxed ? "in a bubblewrap sandbox" : "without a sandbox"}`;
  }

  /**
   * Makes the data directory traversable but not listable by workspace users (they must reach
   * their own deployment's directory), and the database and secrets key readable by the control
   * plane only.
   */
  protectDataDir(): void {
    const dir = this.options.dataDir;
    fs.chmodSync(dir, this.options.workspaceUsers ? 0o711 : 0o700);
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isFile()) fs.chmodSync(full, 0o600);
      else if (entry.isDirectory())
        fs.chmodSync(full, entry.name === "deployments" || entry.name === "workspaces" ? 0o711 : 0o700);
    }
  }

  /**
   * A deployment's directory: the control plane's (mode 0711, so its user can reach inside but
   * not list it), its logs the control plane's only, its builds and data the workspace's.
   */
  prepare(layout: DeploymentLayout, identity: WorkspaceIdentity | null): void {
    fs.mkdirSync(layout.root, { recursive: true });
    fs.chmodSync(layout.root, identity ? 0o711 : 0o700);
    for (const dir of [layout.builds, layout.data, layout.logs]) fs.mkdirSync(dir, { recursive: true });
    fs.chmodSync(layout.logs, 0o700);
    for (const dir of [layout.builds, layout.data]) {
      if (identity) {
        const stat = fs.statSync(dir);
        if (stat.uid !== identity.uid) this.own(dir, identity);
      }
      fs.chmodSync(dir, 0o700);
    }
  }

  /** The workspace's OS identity (allocated and its HOME prepared on first use), or null without users. */
  identity(tenantId: string): WorkspaceIdentity | null {
    if (!this.options.workspaceUsers) return null;
    const users = this.#readUsers();
    let uid = users[tenantId];
    if (uid === undefined) {
      uid = Math.max(this.options.uidBase - 1, ...Object.values(users)) + 1;
      users[tenantId] = uid;
      const temp = `${this.#usersFile}.tmp`;
      fs.writeFileSync(temp, JSON.stringify(users), { mode: 0o600 });
      fs.renameSync(temp, this.#usersFile);
    }
    const root = path.join(this.#workspacesDir, String(uid));
    const home = path.join(root, "home");
    const identity = { uid, gid: uid, home };
    if (!fs.existsSync(path.join(root, ".ready"))) {
      fs.mkdirSync(this.#workspacesDir, { recursive: true, mode: 0o711 });
      fs.chmodSync(this.#workspacesDir, 0o711);
      fs.mkdirSync(home, { recursive: true, mode: 0o700 });
      fs.chmodSync(root, 0o711);
      if (this.options.npmCacheSeed)
        seedNpmCache(this.options.npmCacheSeed, path.join(home, ".npm"), identity);
      this.own(home, identity, { keepLinked: true });
      fs.writeFileSync(path.join(root, ".ready"), "");
    }
    return identity;
  }

  /**
   * Hands a directory tree to the workspace (lchown, never following links). With `keepLinked`,
   * files with more than one link are left alone: the seeded npm cache's content, shared read-only.
   */
  own(
    dir: string,
    identity: WorkspaceIdentity | null,
    options: { mode?: number; keepLinked?: boolean } = {},
  ): void {
    if (!identity) return;
    const walk = (current: string) => {
      const stat = fs.lstatSync(current);
      if (stat.isDirectory()) {
        for (const name of fs.readdirSync(current)) walk(path.join(current, name));
      } else if (options.keepLinked && stat.nlink > 1 && !stat.isSymbolicLink()) {
        return;
      }
      if (stat.uid !== identity.uid || stat.gid !== identity.gid)
        fs.lchownSync(current, identity.uid, identity.gid);
    };
    walk(dir);
    if (options.mode !== undefined) fs.chmodSync(dir, options.mode);
  }

  /**
   * Removes a tree the workspace's user could change (its builds, its data) as that user: a path
   * swapped for a link mid-walk then removes nothing the workspace could not remove itself.
   */
  remove(dir: string, identity: Pick<WorkspaceIdentity, "uid" | "gid"> | null = this.#ownerOf(dir)): void {
    if (identity && fs.existsSync(dir)) {
      spawnSync("rm", ["-rf", "--", dir], { uid: identity.uid, gid: identity.gid, stdio: "ignore" });
    }
    // What is left is the control plane's own (or there is no workspace user).
    fs.rmSync(dir, { recursive: true, force: true });
  }

  /** The variables that point tools at the workspace's own HOME, cache and temporary directory. */
  environment(identity: WorkspaceIdentity | null): Record<string, string> {
    const vars: Record<string, string> = this.sandboxed ? { TMPDIR: "/tmp" } : {};
    if (!identity) return vars;
    return { ...vars, HOME: identity.home, npm_config_cache: path.join(identity.home, ".npm") };
  }

  /** How to start `command args` for the workspace: as its user, inside the sandbox. */
  launch(
    command: string,
    args: string[],
    identity: WorkspaceIdentity | null,
    mounts: SandboxMounts & { cwd: string },
  ): LaunchPlan {
    const user = identity ? { uid: identity.uid, gid: identity.gid } : {};
    const { bwrapPath: bwrap, setprivPath: setpriv } = this.options;
    if (!bwrap) return { command, args, ...user };
    const sandbox = [
      ...sandboxArgs(this.options.dataDir, identity, mounts, this.options.berthFiles),
      "--chdir",
      mounts.cwd,
      "--",
    ];
    if (identity && setpriv) {
      const drop = [setpriv, `--reuid=${identity.uid}`, `--regid=${identity.gid}`, "--clear-groups", "--"];
      return { command: bwrap, args: [...sandbox, ...drop, command, ...args] };
    }
    return { command: bwrap, args: [...sandbox, command, ...args], ...user };
  }

  /** The workspace user owning `dir` (not the control plane's own user), or null. */
  #ownerOf(dir: string): { uid: number; gid: number } | null {
    if (!this.options.workspaceUsers) return null;
    try {
      const stat = fs.lstatSync(dir);
      return stat.uid === process.getuid?.() ? null : { uid: stat.uid, gid: stat.gid };
    } catch {
      return null;
    }
  }

  #readUsers(): Record<string, number> {
    try {
      return JSON.parse(fs.readFileSync(this.#usersFile, "utf8")) as Record<string, number>;
    } catch {
      return {};
    }
  }
}

/**
 * bubblewrap arguments: the system read-only, a private /tmp and /dev, the control plane's data
 * directory replaced by an empty tmpfs, then only this workspace's own directories put back.
 */
export function sandboxArgs(
  dataDir: string,
  identity: WorkspaceIdentity | null,
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
  // data directory's tmpfs below still covers it if it lies inside.
  for (const dir of berthFiles) if (isUnder(dir, "/tmp")) args.push("--ro-bind", dir, dir);
  // No --new-session: the process group is how the runtime stops everything the command started.
  args.push("--unshare-pid", "--unshare-ipc", "--unshare-uts");
  if (mounts.dieWithParent) args.push("--die-with-parent");
  args.push("--tmpfs", dataDir);
  const writable = identity ? [...mounts.writable, identity.home] : mounts.writable;
  // bubblewrap would create the directories leading to a mount point with mode 0700 (root's), out
  // of the workspace user's reach: they are made 0755 first (they hold nothing but the mounts).
  const made = new Set<string>();
  for (const dir of [...mounts.readable, ...writable]) {
    const rel = path.relative(dataDir, dir);
    if (rel.startsWith("..") || path.isAbsolute(rel)) continue;
    const parts = rel.split(path.sep).slice(0, -1);
    for (let i = 1; i <= parts.length; i += 1) {
      const ancestor = path.join(dataDir, ...parts.slice(0, i));
      if (made.has(ancestor)) continue;
      made.add(ancestor);
      args.push("--perms", "0755", "--dir", ancestor);
    }
  }
  for (const dir of mounts.readable) args.push("--ro-bind", dir, dir);
  for (const dir of writable) args.push("--bind", dir, dir);
  return args;
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

/**
 * Starts a workspace's npm cache with the operator's: index entries are copied (npm appends to
 * them), content files are hard-linked where possible (immutable, addressed by hash, left owned by
 * the operator so a workspace cannot alter what another one reads).
 */
function seedNpmCache(from: string, to: string, identity: WorkspaceIdentity): void {
  const source = path.join(from, "_cacache");
  if (!fs.existsSync(source)) return;
  const walk = (rel: string) => {
    const src = path.join(source, rel);
    const dest = path.join(to, "_cacache", rel);
    fs.mkdirSync(dest, { recursive: true });
    for (const entry of fs.readdirSync(src, { withFileTypes: true })) {
      const childRel = path.join(rel, entry.name);
      if (entry.isDirectory()) {
        if (rel === "" && entry.name === "tmp") continue;
        walk(childRel);
      } else if (entry.isFile()) {
        const target = path.join(to, "_cacache", childRel);
        if (childRel.startsWith(`content-v2${path.sep}`)) {
          try {
            fs.linkSync(path.join(source, childRel), target);
            continue;
          } catch {
            // another file system: copy instead
          }
        }
        fs.copyFileSync(path.join(source, childRel), target);
        fs.lchownSync(target, identity.uid, identity.gid);
      }
    }
  };
  try {
    walk("");
  } catch {
    // A partial seed only means more packages come from the registry.
  }
}
