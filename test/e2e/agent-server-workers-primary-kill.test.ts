// The embedded cluster's children die with their primary (issue 27): after `kill -9` of the
// primary of `berth dev --workers 2`, with a run in progress whose node ignores its abort, no child
// lives on (a drain would keep it for the grace period, BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS), and a
// restart on the same port and data directory takes the run back.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import { after, describe, it } from "node:test";
import { promisify } from "node:util";
import { makeTempDir, type SpawnedServer, spawnBerth } from "@berth-platform/testkit";
import { Client } from "@langchain/langgraph-sdk";
import { FIXTURE_CONFIG, untilRunning } from "./helpers.js";

const exec = promisify(execFile);

/** How long the children may take to go once the primary is killed (a loaded machine included). */
const GONE_WITHIN_MS = 3_000;

async function childrenOf(pid: number): Promise<number[]> {
  const { stdout } = await exec("ps", ["--ppid", String(pid), "-o", "pid="]).catch(() => ({ stdout: "" }));
  return stdout
    .split("\n")
    .map((line) => Number(line.trim()))
    .filter((n) => n > 0);
}

/** Whether the process still runs (a zombie, exited but not yet reaped by init, does not). */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Whether something accepts connections on the port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("berth dev --workers 2: kill -9 of the primary", () => {
  const temp = makeTempDir();
  const servers: SpawnedServer[] = [];
  const orphans: number[] = [];
  after(async () => {
    for (const server of servers) await server.stop("SIGKILL").catch(() => {});
    for (const pid of orphans) if (alive(pid)) process.kill(pid, "SIGKILL");
    temp.cleanup();
  });

  it("takes the children with it at once: the port is free, no child remains, and a restart resumes the run", async () => {
    const args = ["dev", "--config", FIXTURE_CONFIG, "--data-dir", temp.dir, "--workers", "2"];
    const env = {
      BERTH_WORKERS: "2",
      BERTH_LEASE_MS: "3000",
      BERTH_HEARTBEAT_MS: "500",
      BERTH_REAPER_MS: "500",
    };
    const first = await spawnBerth([...args, "--port", "0"], { env, timeoutMs: 60_000 });
    servers.push(first);
    const port = Number(new URL(first.url).port);
    const client = new Client({ apiUrl: first.url });
    const thread = await client.threads.create();
    // A node that ignores its abort: a child that drained would wait for it (the grace period).
    const run = await client.runs.create(thread.thread_id, "stubborn", { input: { hold_ms: 20_000 } });
    // The run is executing in a child.
    await untilRunning(client, thread.thread_id, run.run_id);
    const children = await childrenOf(first.process.pid ?? 0);
    assert.equal(children.length, 2, "two children");
    orphans.push(...children);

    const killedAt = Date.now();
    await first.stop("SIGKILL");
    let goneMs = -1;
    let childrenMs = -1;
    let portMs = -1;
    while (Date.now() - killedAt < 30_000) {
      if (childrenMs < 0 && children.every((pid) => !alive(pid))) childrenMs = Date.now() - killedAt;
      if (portMs < 0 && !(await accepts(port))) portMs = Date.now() - killedAt;
      if (childrenMs >= 0 && portMs >= 0) {
        goneMs = Math.max(childrenMs, portMs);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    console.log(
      `# after kill -9 of the primary: children gone in ${childrenMs} ms, port free in ${portMs} ms`,
    );
    assert.ok(
      goneMs >= 0 && goneMs <= GONE_WITHIN_MS,
      `children gone after ${goneMs} ms (bound ${GONE_WITHIN_MS})`,
    );

    // A restart on the same port and data directory: the run held by a dead child is taken back.
    const second = await spawnBerth([...args, "--port", String(port)], {
      env: { ...env, BERTH_FIXTURE_NO_HOLD: "1" },
      timeoutMs: 60_000,
    });
    servers.push(second);
    assert.equal(new URL(second.url).port, String(port), "the same port");
    const again = new Client({ apiUrl: second.url });
    await again.runs.join(thread.thread_id, run.run_id);
    assert.equal((await again.runs.get(thread.thread_id, run.run_id)).status, "success");
  });
});
