// Two agent servers on one SQLite data directory (BERTH_SHARED_DATA_DIR with Redis: the local
// runtime's blue/green mode, issue 14), under load through the official SDK: runs created
// round-robin on both and joined from the other are each executed once, in order, one at a time
// per thread, with no SQLITE_BUSY surfacing as a failed request. Needs REDIS_URL.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { after, before, describe, it, test } from "node:test";
import { makeTempDir, type SpawnedServer, spawnBerth } from "@berth-platform/testkit";
import { Client } from "@langchain/langgraph-sdk";
import Database from "better-sqlite3";
import { FIXTURE_CONFIG } from "./helpers.js";
import {
  assertRunsInOrder,
  createThreads,
  enqueueRoundRobin,
  joinAll,
  OVERLAPPING_THREADS_SQL,
  sampleOverlaps,
} from "./load-helpers.js";

const REDIS_URL = process.env.REDIS_URL;
const THREADS = 60;
const RUNS_PER_THREAD = 5;

if (!REDIS_URL) {
  console.log("# REDIS_URL is not set: the shared SQLite data directory test is skipped.");
  test("shared SQLite data directory", { skip: "REDIS_URL is not set" }, () => {});
} else {
  describe("two agent servers sharing one SQLite data directory", () => {
    const temp = makeTempDir("berth-shared-sqlite-");
    const servers: SpawnedServer[] = [];
    let clients: Client[] = [];

    before(async () => {
      const env = {
        REDIS_URI: REDIS_URL,
        REDIS_KEY_PREFIX: `test-shared-${randomBytes(4).toString("hex")}:`,
        BERTH_SHARED_DATA_DIR: "1",
      };
      for (let i = 0; i < 2; i++) {
        servers.push(
          await spawnBerth(["dev", "--config", FIXTURE_CONFIG, "--port", "0", "--data-dir", temp.dir], {
            env,
          }),
        );
      }
      clients = servers.map((s) => new Client({ apiUrl: s.url }));
    });
    after(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      temp.cleanup();
    });

    it("runs created on both are each executed once, in order, never two at a time on a thread", async () => {
      const db = new Database(path.join(temp.dir, "agent-server.sqlite"), { readonly: true });
      try {
        const overlapping = db.prepare(OVERLAPPING_THREADS_SQL);
        const sampler = sampleOverlaps(() => (overlapping.get() as { n: number }).n, 50);
        const threadIds = await createThreads(clients, THREADS, 8);
        const runs = await enqueueRoundRobin(clients, threadIds, RUNS_PER_THREAD, 16);
        await joinAll(clients, threadIds, runs, 16);
        assert.equal(await sampler.stop(), 0, "two runs of one thread were running at once");
        const statuses = db
          .prepare("select status, count(*) as n, max(attempt) as attempts from runs group by status")
          .all();
        assert.deepEqual(statuses, [{ status: "success", n: THREADS * RUNS_PER_THREAD, attempts: 1 }]);
        await assertRunsInOrder(clients, threadIds, RUNS_PER_THREAD, 8);
      } finally {
        db.close();
      }
    });

    it("a run executed by either process streams, joins and cancels through the other", async () => {
      const [a, b] = clients as [Client, Client];
      const thread = await a.threads.create();
      const run = await a.runs.create(thread.thread_id, "slow", {
        input: { messages: [{ role: "user", content: "sleep 60000" }] },
      });
      await new Promise<void>((resolve, reject) => {
        const poll = async () => {
          const status = (await b.runs.get(thread.thread_id, run.run_id)).status;
          if (status === "running") resolve();
          else setTimeout(() => void poll().catch(reject), 50);
        };
        void poll().catch(reject);
      });
      const events: string[] = [];
      const streamed = (async () => {
        for await (const part of b.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "-1" }))
          events.push(part.event);
      })();
      await a.runs.cancel(thread.thread_id, run.run_id, true);
      await streamed;
      assert.equal((await b.runs.get(thread.thread_id, run.run_id)).status, "interrupted");
      assert.equal(events[0], "metadata");
      await b.runs.join(thread.thread_id, run.run_id);
    });
  });
}
