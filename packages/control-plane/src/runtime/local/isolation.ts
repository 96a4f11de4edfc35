import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { DeploymentLayout } from "./layout.js";
import { copyNpmCache, type SeedCopy, seedNpmCache } from "./npm-cache-seed.js";
import { type SandboxMounts, sandboxArgs } from "./sandbox-args.js";

export { findProgram, type SandboxMounts, sandboxArgs } from "./sandbox-args.js";

/** The OS identity a workspace's builds and agent servers run as. */
export interface WorkspaceIdentity {
  uid: number;
  gid: number;
  /** The workspace's own HOME (npm cache, tool state), owned by `uid`, mode 0700. */
  home: string;
}

/** A workspace as its processes see it: the user they run as and the HOME they write to. */
export interface Workspace {
  /** Its OS user, or null: its processes run as the control plane's user. */
  identity: WorkspaceIdentity | null;
  /**
   * Its own HOME, bound writable into the sandbox (the identity's, or a private one when sandboxed
   * without workspace users), or null without either: then it shares the operator's HOME.
   */
  home: string | null;
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
  /** Seeds of private HOMEs under way, by workspace directory: concurrent builds share one. */
  readonly #seeding = new Map<string, Promise<SeedCopy | null>>();

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
   * plane only. Without workspace users nobody but the control plane passes through `workspaces`.
   */
  protectDataDir(): void {
    const dir = this.options.dataDir;
    fs.chmodSync(dir, this.options.workspaceUsers ? 0o711 : 0o700);
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isFile()) fs.chmodSync(full, 0o600);
      else if (entry.isDirectory()) fs.chmodSync(full, this.#dirMode(entry.name));
    }
  }

  /** The mode protectDataDir gives a directory at the top of the data directory. */
  #dirMode(name: string): number {
    if (name === "deployments") return 0o711;
    if (name === "workspaces") return this.options.workspaceUsers ? 0o711 : 0o700;
    return 0o700;
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
    // Its own temporary directory (workspaces made before it existed get it now): outside a
    // sandbox, the operator's TMPDIR may be private to the operator (systemd PrivateTmp, a
    // container's), and tsx, npm and the graphs write theirs.
    const tmp = tmpDirOf(home);
    if (!fs.existsSync(tmp)) {
      fs.mkdirSync(tmp, { mode: 0o700 });
      fs.chownSync(tmp, uid, uid);
    }
    return identity;
  }

  /**
   * The workspace's user (if any) and HOME. Sandboxed without workspace users, it gets a private
   * HOME all the same (created on first use; its npm cache is seeded by seedHome): the sandbox
   * shows the operator's HOME and npm cache read-only, and npm must write its cache.
   */
  workspace(tenantId: string): Workspace {
    const identity = this.identity(tenantId);
    if (identity) return { identity, home: identity.home };
    if (!this.sandboxed) return { identity: null, home: null };
    const { home } = this.#privateHome(tenantId);
    return { identity: null, home };
  }

  /**
   * Seeds the private HOME of a workspace sandboxed without a user with the operator's npm cache,
   * once, before its first commands run (installs then work offline as with workspace users).
   * What was copied, or null when there was nothing to do (already seeded, another mode, no cache).
   */
  seedHome(tenantId: string): Promise<SeedCopy | null> {
    const seed = this.options.npmCacheSeed;
    if (this.options.workspaceUsers || !this.sandboxed || !seed) return Promise.resolve(null);
    const { root, home } = this.#privateHome(tenantId);
    const marker = path.join(root, ".seeded");
    if (fs.existsSync(marker)) return Promise.resolve(null);
    let seeding = this.#seeding.get(root);
    if (!seeding) {
      seeding = copyNpmCache(seed, root, path.join(home, ".npm"))
        .then((copied) => {
          fs.writeFileSync(marker, "");
          return copied;
        })
        .finally(() => this.#seeding.delete(root));
      this.#seeding.set(root, seeding);
    }
    return seeding;
  }

  /**
   * `workspaces/tenant-<hash>/home` (0700, like everything of the control plane's there): named by
   * a hash of the tenant id, so no id can name a path of its own, and apart from the uid-named
   * directories of workspace users.
   */
  #privateHome(tenantId: string): { root: string; home: string } {
    const hash = createHash("sha256").update(tenantId).digest("hex").slice(0, 32);
    const root = path.join(this.#workspacesDir, `tenant-${hash}`);
    const home = path.join(root, "home");
    if (!fs.existsSync(home)) {
      fs.mkdirSync(this.#workspacesDir, { recursive: true, mode: this.#dirMode("workspaces") });
      fs.mkdirSync(root, { recursive: true, mode: 0o700 });
      fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    }
    return { root, home };
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

  /**
   * The variables that point tools at the workspace's own HOME, cache and temporary directory: the
   * sandbox's /tmp, else the workspace user's own; the operator's TMPDIR only for processes that
   * run as the operator.
   */
  environment(workspace: Workspace): Record<string, string> {
    const tmp = this.sandboxed ? "/tmp" : workspace.identity ? tmpDirOf(workspace.identity.home) : null;
    const vars: Record<string, string> = tmp ? { TMPDIR: tmp } : {};
    if (!workspace.home) return vars;
    return { ...vars, HOME: workspace.home, npm_config_cache: path.join(workspace.home, ".npm") };
  }

  /** How to start `command args` for the workspace: as its user, inside the sandbox. */
  launch(
    command: string,
    args: string[],
    workspace: Workspace,
    mounts: SandboxMounts & { cwd: string },
  ): LaunchPlan {
    const { identity } = workspace;
    const user = identity ? { uid: identity.uid, gid: identity.gid } : {};
    const { bwrapPath: bwrap, setprivPath: setpriv } = this.options;
    if (!bwrap) return { command, args, ...user };
    const sandbox = [
      ...sandboxArgs(this.options.dataDir, workspace.home, mounts, this.options.berthFiles),
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

/** A workspace user's temporary directory, inside its HOME. */
function tmpDirOf(home: string): string {
  return path.join(home, "tmp");
}
