// The pure parts of workspace isolation: the sandbox's mounts and how a command is launched.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { sandboxArgs, WorkspaceIsolation } from "../src/runtime/local/isolation.js";

const identity = { uid: 200001, gid: 200001, home: "/srv/berth/workspaces/200001/home" };
const userWorkspace = { identity, home: identity.home };
/** A workspace sandboxed without a user of its own: the operator's uid, a private HOME. */
const privateHome = "/srv/berth/workspaces/tenant-0123456789abcdef0123456789abcdef/home";
const mounts = {
  writable: ["/srv/berth/deployments/d/data"],
  readable: ["/srv/berth/deployments/d/builds/k"],
  dieWithParent: false,
};

describe("sandboxArgs", () => {
  it("hides the data directory, then puts back only the deployment's own directories", () => {
    const args = sandboxArgs("/srv/berth", identity.home, mounts);
    const at = (flag: string, value: string) => args.findIndex((a, i) => a === flag && args[i + 1] === value);
    assert.ok(at("--ro-bind", "/") >= 0, "the system is read-only");
    assert.ok(at("--tmpfs", "/srv/berth") >= 0, "the data directory is an empty tmpfs");
    assert.ok(at("--tmpfs", "/srv/berth") < at("--bind", "/srv/berth/deployments/d/data"));
    assert.ok(at("--ro-bind", "/srv/berth/deployments/d/builds/k") > at("--tmpfs", "/srv/berth"));
    assert.ok(at("--bind", identity.home) > 0, "its HOME is writable");
    assert.ok(!args.includes("/srv/berth/secrets.key") && !args.some((a) => a.endsWith(".sqlite")));
    // Mount points on the way are reachable by the workspace user (bwrap would make them 0700).
    const perms = args.findIndex(
      (a, i) => a === "--perms" && args[i + 2] === "--dir" && args[i + 3] === "/srv/berth/deployments",
    );
    assert.ok(perms >= 0 && args[perms + 1] === "0755");
    assert.ok(!args.includes("--new-session"), "the runtime stops a process group");
    assert.ok(!args.includes("--die-with-parent"), "agent servers outlive a crashed control plane");
    assert.ok(
      sandboxArgs("/srv/berth", null, { ...mounts, dieWithParent: true }).includes("--die-with-parent"),
    );
  });

  it("binds a private HOME writable, under the data directory's tmpfs, with reachable mount points", () => {
    const args = sandboxArgs("/srv/berth", privateHome, mounts);
    const at = (flag: string, value: string) => args.findIndex((a, i) => a === flag && args[i + 1] === value);
    assert.ok(at("--bind", privateHome) > at("--tmpfs", "/srv/berth"));
    assert.equal(args[at("--bind", privateHome) + 2], privateHome);
    for (const dir of ["/srv/berth/workspaces", path.dirname(privateHome)]) {
      const made = args.findIndex((a, i) => a === "--dir" && args[i + 1] === dir);
      assert.ok(made > 0 && args[made - 2] === "--perms" && args[made - 1] === "0755", dir);
    }
    const none = sandboxArgs("/srv/berth", null, mounts);
    assert.ok(!none.some((a) => a.includes("/workspaces")), "no HOME: nothing of workspaces/ mounted");
  });

  it("puts Berth's own install back when the private /tmp would hide it", () => {
    const args = sandboxArgs("/tmp/ci/data", identity.home, mounts, ["/tmp/ci/berth", "/usr/lib/berth"]);
    const at = (flag: string, value: string) => args.findIndex((a, i) => a === flag && args[i + 1] === value);
    assert.ok(at("--ro-bind", "/tmp/ci/berth") > at("--tmpfs", "/tmp"), "after the private /tmp");
    assert.ok(at("--ro-bind", "/tmp/ci/berth") < at("--tmpfs", "/tmp/ci/data"), "under the data dir's tmpfs");
    assert.equal(at("--ro-bind", "/usr/lib/berth"), -1, "outside /tmp it is visible already");
    // The workspace user crosses the directories bubblewrap makes on the way (else root's 0700:
    // "Cannot find module" for every build when Berth is checked out under /tmp).
    const made = at("--dir", "/tmp/ci");
    assert.ok(made > 0 && args[made - 1] === "0755" && made < at("--ro-bind", "/tmp/ci/berth"));
  });

  it("a workspace user reads Berth's program under /tmp inside a real sandbox", {
    skip: sandboxSkip(),
  }, () => {
    const root = fs.mkdtempSync(path.join("/tmp", "berth-sandbox-"));
    try {
      const install = path.join(root, "deep", "berth");
      fs.mkdirSync(install, { recursive: true });
      fs.chmodSync(root, 0o755);
      fs.writeFileSync(path.join(install, "program.js"), "ok\n", { mode: 0o644 });
      const data = path.join(os.tmpdir(), "berth-sandbox-data-unused");
      const args = sandboxArgs(data, null, { writable: [], readable: [], dieWithParent: true }, [install]);
      const user = ["--reuid=200777", "--regid=200777", "--clear-groups"];
      const read = spawnSync(
        "bwrap",
        [...args, "--", "setpriv", ...user, "cat", path.join(install, "program.js")],
        {
          encoding: "utf8",
        },
      );
      assert.equal(read.status, 0, read.stderr);
      assert.equal(read.stdout, "ok\n");
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

/** Why the real-sandbox check cannot run here (it needs root, bubblewrap and setpriv), or false. */
function sandboxSkip(): string | false {
  if (process.getuid?.() !== 0) return "needs root (to drop to a workspace user)";
  for (const program of ["bwrap", "setpriv"]) {
    if (spawnSync(program, ["--version"]).error) return `${program} is not installed`;
  }
  return false;
}

describe("WorkspaceIsolation.launch", () => {
  const options = { dataDir: "/srv/berth", uidBase: 200000, npmCacheSeed: null };
  it("drops to the workspace user inside the sandbox when it has setpriv", () => {
    const iso = new WorkspaceIsolation({
      ...options,
      workspaceUsers: true,
      bwrapPath: "/usr/bin/bwrap",
      setprivPath: "/usr/bin/setpriv",
    });
    const plan = iso.launch("/bin/sh", ["-c", "npm ci"], userWorkspace, { ...mounts, cwd: "/x" });
    assert.equal(plan.command, "/usr/bin/bwrap");
    assert.equal(plan.uid, undefined, "bwrap itself runs as the control plane's user");
    const dash = plan.args.indexOf("--");
    assert.deepEqual(plan.args.slice(dash + 1), [
      "/usr/bin/setpriv",
      "--reuid=200001",
      "--regid=200001",
      "--clear-groups",
      "--",
      "/bin/sh",
      "-c",
      "npm ci",
    ]);
    assert.deepEqual(plan.args.slice(dash - 2, dash), ["--chdir", "/x"]);
  });
  it("sandboxed without a workspace user: the operator's uid, the private HOME bound and named", () => {
    const iso = new WorkspaceIsolation({
      ...options,
      workspaceUsers: false,
      bwrapPath: "/usr/bin/bwrap",
      setprivPath: null,
    });
    const workspace = { identity: null, home: privateHome };
    const plan = iso.launch("/bin/sh", ["-c", "npm ci"], workspace, { ...mounts, cwd: "/x" });
    assert.equal(plan.command, "/usr/bin/bwrap");
    assert.equal(plan.uid, undefined);
    assert.ok(plan.args.some((a, i) => a === "--bind" && plan.args[i + 1] === privateHome));
    assert.deepEqual(plan.args.slice(plan.args.indexOf("--") + 1), ["/bin/sh", "-c", "npm ci"]);
    assert.deepEqual(iso.environment(workspace), {
      TMPDIR: "/tmp",
      HOME: privateHome,
      npm_config_cache: `${privateHome}/.npm`,
    });
  });
  it("runs as the workspace user without a sandbox, and as is without either", () => {
    const users = new WorkspaceIsolation({
      ...options,
      workspaceUsers: true,
      bwrapPath: null,
      setprivPath: null,
    });
    assert.deepEqual(users.launch("node", ["a"], userWorkspace, { ...mounts, cwd: "/x" }), {
      command: "node",
      args: ["a"],
      uid: 200001,
      gid: 200001,
    });
    const none = new WorkspaceIsolation({
      ...options,
      workspaceUsers: false,
      bwrapPath: null,
      setprivPath: null,
    });
    assert.deepEqual(none.launch("node", ["a"], { identity: null, home: null }, { ...mounts, cwd: "/x" }), {
      command: "node",
      args: ["a"],
    });
    assert.deepEqual(none.environment({ identity: null, home: null }), {});
    assert.equal(users.environment(userWorkspace).HOME, identity.home);
    assert.equal(users.environment(userWorkspace).npm_config_cache, `${identity.home}/.npm`);
    // Not the operator's TMPDIR (it may be private to the operator): the workspace user's own.
    assert.equal(users.environment(userWorkspace).TMPDIR, `${identity.home}/tmp`);
  });
});
