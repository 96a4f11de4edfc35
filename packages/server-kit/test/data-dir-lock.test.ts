// The data-directory lock across PID namespaces: the local runtime's sandbox gives every agent
// server its own, where the old and the new revision of a deployment are both pid 2. A lock that
// trusted the pid let the new revision take the queue while the old one still ran it.
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { DataDirBusyError, lockDataDir } from "../src/index.js";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-lock-"));
  dirs.push(dir);
  return dir;
}

function writeLock(dir: string, holder: object, ageMs: number): void {
  const file = path.join(dir, "server.lock");
  fs.writeFileSync(file, JSON.stringify(holder));
  const when = new Date(Date.now() - ageMs);
  fs.utimesSync(file, when, when);
}

describe("data directory lock", () => {
  it("a holder in another PID namespace is alive while its heartbeat is fresh, even with our pid", () => {
    const dir = tempDir();
    writeLock(dir, { pid: process.pid, pidns: "pid:[1]", token: "other" }, 1_000);
    assert.throws(() => lockDataDir(dir), DataDirBusyError);
  });

  it("a holder in another PID namespace whose heartbeat stopped is taken over", () => {
    const dir = tempDir();
    writeLock(dir, { pid: 2, pidns: "pid:[1]", token: "other" }, 20_000);
    const lock = lockDataDir(dir);
    lock.release();
    assert.equal(fs.existsSync(path.join(dir, "server.lock")), false);
  });

  it("a holder in our namespace is checked by its pid; a bare pid of an older Berth still counts", () => {
    const dir = tempDir();
    const own = fs.readlinkSync("/proc/self/ns/pid");
    writeLock(dir, { pid: process.ppid, pidns: own, token: "other" }, 60_000);
    assert.throws(() => lockDataDir(dir), DataDirBusyError, "alive, however old the file");
    fs.writeFileSync(path.join(dir, "server.lock"), String(process.ppid));
    assert.throws(() => lockDataDir(dir), DataDirBusyError);
    fs.writeFileSync(path.join(dir, "server.lock"), "999999999");
    lockDataDir(dir).release();
  });

  it("release removes only a lock that is still ours", () => {
    const dir = tempDir();
    const lock = lockDataDir(dir);
    writeLock(dir, { pid: 2, pidns: "pid:[1]", token: "someone-else" }, 0);
    lock.release();
    assert.equal(fs.existsSync(path.join(dir, "server.lock")), true);
  });

  const bwrap = spawnSync("bwrap", ["--version"]).status === 0 ? "bwrap" : null;
  if (!bwrap) console.log("# bubblewrap is not installed: the two-sandbox lock test is skipped");
  it("two processes in two sandboxes (both pid 2) never hold it together", { skip: !bwrap }, async () => {
    const dir = tempDir();
    const lockModule = fileURLToPath(new URL("../dist/data-dir-lock.js", import.meta.url));
    // Each holder locks, prints its pid, and keeps the lock until its stdin closes.
    const script = `
      import { lockDataDir } from ${JSON.stringify(lockModule)};
      let lock;
      try { lock = lockDataDir(${JSON.stringify(dir)}); } catch (e) { console.log("busy " + process.pid); process.exit(3); }
      console.log("locked " + process.pid);
      process.stdin.resume();
      process.stdin.on("end", () => { lock.release(); process.exit(0); });`;
    const sandboxed = (): ChildProcess =>
      spawn(
        "bwrap",
        [
          ...["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", dir, dir],
          ...[
            "--unshare-pid",
            "--die-with-parent",
            "--",
            process.execPath,
            "--input-type=module",
            "-e",
            script,
          ],
        ],
        { stdio: ["pipe", "pipe", "inherit"] },
      );
    const firstLine = (child: ChildProcess) =>
      new Promise<string>((resolve) => {
        let out = "";
        child.stdout?.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes("\n")) resolve(out.trim());
        });
      });
    const first = sandboxed();
    assert.equal(await firstLine(first), "locked 2");
    const second = sandboxed();
    assert.equal(await firstLine(second), "busy 2", "same pid, other namespace: still busy");
    first.stdin?.end();
    await new Promise((resolve) => first.once("exit", resolve));
    const third = sandboxed();
    assert.equal(await firstLine(third), "locked 2", "free once the holder released it");
    third.stdin?.end();
    await new Promise((resolve) => third.once("exit", resolve));
  });
});
