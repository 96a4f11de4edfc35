// The embedded agent server on every core (issue 12): `berth dev --workers 2` on the SQLite data
// directory, a primary and two children of the built CLI sharing the port, driven through the
// official SDK. Each SDK client below is pinned to one TCP connection, and the `x-berth-worker`
// response header says which child answers, so cross-process paths are exercised on purpose.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { makeTempDir, type SpawnedServer, spawnBerth } from "@berth-platform/testkit";
import { Client, overrideFetchImplementation } from "@langchain/langgraph-sdk";
import Database from "better-sqlite3";
import { Agent } from "undici";
import { FIXTURE_CONFIG, sleepy, untilRunning } from "./helpers.js";
import {
  assertRunsInOrder,
  createThreads,
  enqueueRoundRobin,
  joinAll,
  OVERLAPPING_THREADS_SQL,
  readStream,
  sampleOverlaps,
} from "./load-helpers.js";

const exec = promisify(execFile);

/** Requests of a client with header `x-test-pin: <name>` go through that pinned connection. */
const pinned = new Map<string, Agent>();
/** Which child answered, counted over every SDK request of this file. */
const answeredBy = new Map<string, number>();
overrideFetchImplementation(async (input: string | URL | Request, init?: RequestInit) => {
  const pin = new Headers(init?.headers).get("x-test-pin");
  const dispatcher = pin ? pinned.get(pin) : undefined;
  const response = await fetch(
    input,
    (dispatcher ? { ...init, dispatcher } : init) as unknown as RequestInit,
  );
  const worker = response.headers.get("x-berth-worker") ?? "none";
  answeredBy.set(worker, (answeredBy.get(worker) ?? 0) + 1);
  return response;
});

/** Child process ids of `pid`, with the cluster slot each was forked for (from its environment). */
async function childrenOf(pid: number): Promise<Array<{ pid: number; index: number | null }>> {
  const { stdout } = await exec("ps", ["--ppid", String(pid), "-o", "pid="]).catch(() => ({ stdout: "" }));
  return stdout
    .split("\n")
    .map((line) => Number(line.trim()))
    .filter((n) => n > 0)
    .map((child) => {
      let index: number | null = null;
      try {
        const env = fs.readFileSync(`/proc/${child}/environ`, "utf8").split("\0");
        const raw = env.find((e) => e.startsWith("BERTH_CLUSTER_CHILD_CONFIG="));
        if (raw)
          index = (JSON.parse(raw.slice(raw.indexOf("=") + 1)) as { cluster: { index: number } }).cluster
            .index;
      } catch {
        // Exited meanwhile.
      }
      return { pid: child, index };
    });
}

/** An SDK client on one keep-alive connection to the child `worker` (new connections alternate). */
async function clientOn(url: string, worker: string): Promise<Client> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const name = `${worker}-${attempt}-${Math.random()}`;
    const agent = new Agent({ connections: 1, pipelining: 1 });
    const response = await fetch(`${url}/ok`, { dispatcher: agent } as unknown as RequestInit);
    await response.text();
    if (response.headers.get("x-berth-worker") === worker) {
      pinned.set(name, agent);
      return new Client({ apiUrl: url, defaultHeaders: { "x-test-pin": name } });
    }
    await agent.close();
  }
  throw new Error(`no connection reached worker ${worker}`);
}

describe("berth dev --workers 2: one primary, two children on the same SQLite files", () => {
  const temp = makeTempDir();
  let server: SpawnedServer | undefined;
  /** Fresh clients on child 0 and child 1 (a dropped stream closes its connection: pin again). */
  const pair = async (): Promise<[Client, Client]> => [
    await clientOn(server?.url ?? "", "0"),
    await clientOn(server?.url ?? "", "1"),
  ];
  before(async () => {
    server = await spawnBerth(
      ["dev", "--config", FIXTURE_CONFIG, "--port", "0", "--data-dir", temp.dir, "--workers", "2"],
      // Short leases: a killed child's runs are handed back by the primary at once anyway.
      {
        env: { BERTH_LEASE_MS: "3000", BERTH_HEARTBEAT_MS: "500", BERTH_REAPER_MS: "500" },
        timeoutMs: 60_000,
      },
    );
  });
  after(async () => {
    for (const agent of pinned.values()) await agent.close().catch(() => {});
    await server?.stop();
    temp.cleanup();
  });

  it("forks two children and the primary serves nothing itself", async () => {
    const children = await childrenOf(server?.process.pid ?? 0);
    assert.deepEqual(children.map((c) => c.index).sort(), [0, 1]);
  });

  it("400 runs over 100 threads created concurrently on both children: each once, in order, one at a time per thread", async () => {
    const url = server?.url ?? "";
    // Several connections of the shared pool: the primary deals them out to both children.
    const clients = Array.from({ length: 4 }, () => new Client({ apiUrl: url }));
    const db = new Database(path.join(temp.dir, "agent-server.sqlite"), { readonly: true });
    db.pragma("busy_timeout = 5000");
    const overlapping = db.prepare(OVERLAPPING_THREADS_SQL);
    const sampler = sampleOverlaps(() => (overlapping.get() as { n: number }).n, 20);
    const before0 = answeredBy.get("0") ?? 0;
    const before1 = answeredBy.get("1") ?? 0;
    const threadIds = await createThreads(clients, 100, 16);
    const runs = await enqueueRoundRobin(clients, threadIds, 4, 32);
    await joinAll(clients, threadIds, runs, 32);
    assert.equal(await sampler.stop(), 0, "two runs of one thread were running at once");
    assert.ok(
      (answeredBy.get("0") ?? 0) > before0 && (answeredBy.get("1") ?? 0) > before1,
      "both children answered",
    );
    const statuses = db
      .prepare("select status, count(*) as n, max(attempt) as attempts from runs group by status")
      .all();
    db.close();
    assert.deepEqual(statuses, [{ status: "success", n: 400, attempts: 1 }]);
    await assertRunsInOrder(clients, threadIds, 4, 16);
  });

  it("a run created on child 0 is joined, stream-joined and cancelled from child 1", async () => {
    const [w0, w1] = await pair();
    const thread = await w0.threads.create();
    const joinedRun = await w0.runs.create(thread.thread_id, "slow", { input: sleepy(300, "joined") });
    const joined = (await w1.runs.join(thread.thread_id, joinedRun.run_id)) as {
      messages: Array<{ content: string }>;
    };
    assert.equal(joined.messages.at(-1)?.content, "done: joined sleep 300");

    // Not resumable: child 1 gets the events from its subscription on, through the primary.
    const streamThread = await w0.threads.create();
    const streamed = await w0.runs.create(streamThread.thread_id, "steps", {
      input: {},
      streamMode: ["values"],
    });
    const frames = await readStream(w1, streamThread.thread_id, streamed.run_id, {});
    const counts = frames.filter((f) => f.event === "values").map((f) => (f.data as { count: number }).count);
    assert.ok(counts.length > 0, "events crossed to the other child");
    assert.deepEqual(
      counts,
      counts.slice().sort((a, b) => a - b),
      "in order",
    );
    assert.equal(new Set(counts).size, counts.length, "no duplicate");
    assert.equal(counts.at(-1), 8, "the stream reached the run's end, then ended");

    const long = await w0.runs.create(thread.thread_id, "slow", { input: sleepy(30_000, "cancelled") });
    await untilRunning(w0, thread.thread_id, long.run_id);
    await w1.runs.cancel(thread.thread_id, long.run_id, true);
    assert.equal((await w0.runs.get(thread.thread_id, long.run_id)).status, "interrupted");
  });

  it("a resumable stream read on child 1, dropped, rejoined on child 0 with Last-Event-ID: no gap, no duplicate", async () => {
    const [w0, w1] = await pair();
    const thread = await w0.threads.create();
    const run = await w0.runs.create(thread.thread_id, "steps", {
      input: {},
      streamMode: ["values", "updates"],
      streamResumable: true,
    });
    const first = await readStream(w1, thread.thread_id, run.run_id, { lastEventId: "-1", stopAfter: 5 });
    assert.equal(first.length, 5);
    assert.equal(first[0]?.event, "metadata", "the first event is the run's metadata");
    const rest = await readStream(w0, thread.thread_id, run.run_id, { lastEventId: first.at(-1)?.id });
    const whole = await readStream((await pair())[1], thread.thread_id, run.run_id, { lastEventId: "-1" });
    const ids = [...first, ...rest].map((f) => f.id);
    assert.deepEqual(
      ids,
      whole.map((f) => f.id),
      "the dropped and rejoined streams together are the whole stream",
    );
    assert.equal(new Set(ids).size, ids.length, "no duplicate");
    const counts = whole.filter((f) => f.event === "values").map((f) => (f.data as { count: number }).count);
    assert.equal(counts.at(-1), 8, "the stream reached the run's end");
  });

  it("kill -9 of a child mid-run: its runs end through the other child, and it is restarted", async () => {
    const primary = server?.process.pid ?? 0;
    const [w0, w1] = await pair();
    const threads = await Promise.all(Array.from({ length: 6 }, () => w0.threads.create()));
    // Created on child 0, which executes what it accepts while it has room.
    const runs = [];
    for (const [t, thread] of threads.entries())
      runs.push(await w0.runs.create(thread.thread_id, "slow", { input: sleepy(1_500, `k${t}`) }));
    await untilRunning(w1, threads[0]?.thread_id ?? "", runs[0]?.run_id ?? "");
    const victim = (await childrenOf(primary)).find((c) => c.index === 0);
    assert.ok(victim, "child 0 is running");
    process.kill(victim.pid, "SIGKILL");
    for (const [t, thread] of threads.entries()) {
      const run = runs[t];
      assert.ok(run);
      await w1.runs.join(thread.thread_id, run.run_id);
      const done = await w1.runs.get(thread.thread_id, run.run_id);
      assert.equal(done.status, "success", `run ${t}`);
      const state = await w1.threads.getState<{ messages: Array<{ type: string; content: string }> }>(
        thread.thread_id,
      );
      assert.deepEqual(
        state.values.messages.filter((m) => m.type === "human").map((m) => m.content),
        [`k${t} sleep 1500`],
        "the input was applied once",
      );
    }
    const db = new Database(path.join(temp.dir, "agent-server.sqlite"), { readonly: true });
    const retried = db
      .prepare(
        `select count(*) as n from runs where attempt > 1 and run_id in (${runs.map(() => "?").join(",")})`,
      )
      .get(...runs.map((r) => r.run_id)) as { n: number };
    db.close();
    assert.ok(retried.n > 0, "runs of the killed child were taken over");
    let restarted: Array<{ pid: number; index: number | null }> = [];
    for (let i = 0; i < 200; i++) {
      restarted = await childrenOf(primary);
      if (restarted.some((c) => c.index === 0 && c.pid !== victim.pid)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(
      restarted.some((c) => c.index === 0 && c.pid !== victim.pid),
      "child 0 was restarted",
    );
    // The restarted child takes connections once it listens.
    let again: Client | undefined;
    for (let i = 0; i < 100 && !again; i++) {
      again = await clientOn(server?.url ?? "", "0").catch(() => undefined);
      if (!again) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.ok(again, "the restarted child 0 answers");
    const thread = await again.threads.create();
    const waited = (await again.runs.wait(thread.thread_id, "echo", {
      input: { messages: [{ role: "user", content: "after restart" }] },
    })) as { messages: Array<{ content: string }> };
    assert.ok(waited.messages.length >= 2, "the restarted child serves runs");
  });

  it("SIGTERM drains every child and the primary exits 0", async () => {
    const primary = server?.process.pid ?? 0;
    const code = await server?.stop("SIGTERM");
    assert.equal(code, 0);
    assert.deepEqual(await childrenOf(primary), []);
    server = undefined;
  });
});

describe("berth dev --workers 1 and the defaults", () => {
  it("--workers 1 is one process; berth dev's default too (issue 29), berth serve's forks one child per core", async () => {
    const temp = makeTempDir();
    try {
      const single = await spawnBerth([
        "dev",
        "--config",
        FIXTURE_CONFIG,
        "--port",
        "0",
        "--data-dir",
        temp.dir,
        "--workers",
        "1",
      ]);
      try {
        assert.deepEqual(await childrenOf(single.process.pid ?? 0), []);
        const ok = await fetch(`${single.url}/ok`);
        assert.equal(ok.headers.get("x-berth-worker"), null);
        const client = new Client({ apiUrl: single.url });
        const thread = await client.threads.create();
        await client.runs.wait(thread.thread_id, "echo", {
          input: { messages: [{ role: "user", content: "hi" }] },
        });
      } finally {
        await single.stop();
      }
      const cores = os.availableParallelism();
      for (const [command, children] of [
        ["dev", 0],
        ["serve", cores > 1 ? cores : 0],
      ] as const) {
        const byDefault = await spawnBerth(
          [command, "--config", FIXTURE_CONFIG, "--port", "0", "--data-dir", temp.dir],
          // berth serve says where it listens in an info line of its JSON log.
          { env: { BERTH_WORKERS: "", BERTH_LOG_LEVEL: "info" }, timeoutMs: 60_000 },
        );
        try {
          assert.equal((await childrenOf(byDefault.process.pid ?? 0)).length, children, command);
        } finally {
          await byDefault.stop();
        }
      }
    } finally {
      temp.cleanup();
    }
  });
});
