// The cron scheduler on a real SQLite file with a fixed clock and a recording RunService: missed
// occurrences collapse into one run, two schedulers never fire the same occurrence, disabled and
// finished crons stay quiet.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { makeTempDir } from "@berth-platform/testkit";
import pino from "pino";
import { newThread } from "../src/domain/thread-record.js";
import { CronScheduler } from "../src/queue/cron-scheduler.js";
import type { RunService } from "../src/services/runs.js";
import { openSqliteBackend } from "../src/storage/sqlite/index.js";
import type { CronRecord, Storage } from "../src/storage/types.js";

const temp = makeTempDir();
after(() => temp.cleanup());
const logger = pino({ level: "silent" });
const T0 = Date.parse("2026-05-01T12:00:30Z");
let n = 0;

async function open(): Promise<Storage> {
  n += 1;
  const backend = await openSqliteBackend(`${temp.dir}/db-${n}`);
  after(() => backend.storage.close());
  return backend.storage;
}

/** A RunService stand-in that records the runs crons ask for. */
function recorder(): { runs: RunService; calls: Array<{ kind: string; body: Record<string, unknown> }> } {
  const calls: Array<{ kind: string; body: Record<string, unknown> }> = [];
  const fake = {
    async createStateless(body: Record<string, unknown>) {
      calls.push({ kind: "stateless", body });
      return { run_id: "r", thread_id: "t" };
    },
    async createForThread(threadId: string, body: Record<string, unknown>) {
      calls.push({ kind: `thread:${threadId}`, body });
      return { run_id: "r", thread_id: threadId };
    },
  };
  return { runs: fake as unknown as RunService, calls };
}

function cron(id: string, overrides: Partial<CronRecord> = {}): CronRecord {
  const now = new Date(T0).toISOString();
  return {
    cron_id: id,
    assistant_id: "assistant-1",
    thread_id: null,
    user_id: null,
    schedule: "* * * * *",
    timezone: "UTC",
    end_time: null,
    payload: { input: { n: 1 } },
    metadata: {},
    enabled: true,
    on_run_completed: "keep",
    next_run_at: T0 - 5 * 60_000,
    created_at: now,
    updated_at: now,
    ...overrides,
  };
}

async function runOnce(storage: Storage, runs: RunService): Promise<void> {
  const scheduler = new CronScheduler({ crons: storage.crons, runs, logger, now: () => T0 });
  scheduler.start();
  await scheduler.stop();
}

describe("cron scheduler", () => {
  it("five missed occurrences fire one run, with the cron's payload, and the next one is in the future", async () => {
    const storage = await open();
    await storage.crons.create(cron("c1"));
    const { runs, calls } = recorder();
    await runOnce(storage, runs);
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0], {
      kind: "stateless",
      body: { ...calls[0]?.body, assistant_id: "assistant-1", input: { n: 1 }, on_completion: "keep" },
    });
    assert.equal((await storage.crons.get("c1"))?.next_run_at, Date.parse("2026-05-01T12:01:00Z"));
    await runOnce(storage, runs);
    assert.equal(calls.length, 1, "nothing is due any more at the same instant");
  });

  it("two schedulers on one database fire an occurrence once", async () => {
    const storage = await open();
    await storage.crons.create(cron("c2"));
    const { runs, calls } = recorder();
    const a = new CronScheduler({ crons: storage.crons, runs, logger, now: () => T0 });
    const b = new CronScheduler({ crons: storage.crons, runs, logger, now: () => T0 });
    a.start();
    b.start();
    await Promise.all([a.stop(), b.stop()]);
    assert.equal(calls.length, 1);
  });

  it("thread crons run on their thread with enqueue unless they say otherwise", async () => {
    const storage = await open();
    const now = new Date(T0).toISOString();
    await storage.threads.create(newThread("th", now), "raise");
    await storage.crons.create(cron("c3", { thread_id: "th", on_run_completed: null }));
    await storage.crons.create(
      cron("c4", { thread_id: "th", on_run_completed: null, payload: { multitask_strategy: "reject" } }),
    );
    const { runs, calls } = recorder();
    await runOnce(storage, runs);
    assert.deepEqual(calls.map((c) => [c.kind, c.body.multitask_strategy]).sort(), [
      ["thread:th", "enqueue"],
      ["thread:th", "reject"],
    ]);
  });

  it("disabled crons and crons past their end do not fire", async () => {
    const storage = await open();
    await storage.crons.create(cron("off", { enabled: false }));
    await storage.crons.create(cron("over", { next_run_at: null }));
    // Due now, but its end comes before the next occurrence: it fires this once, then stops.
    await storage.crons.create(cron("last", { end_time: new Date(T0 + 10_000).toISOString() }));
    const { runs, calls } = recorder();
    await runOnce(storage, runs);
    assert.equal(calls.length, 1);
    assert.equal((await storage.crons.get("last"))?.next_run_at, null);
    assert.equal((await storage.crons.get("off"))?.next_run_at, T0 - 5 * 60_000);
  });

  it("a run that cannot be created skips the occurrence; the schedule goes on", async () => {
    const storage = await open();
    await storage.crons.create(cron("bad"));
    const failing = {
      async createStateless() {
        throw new Error("assistant gone");
      },
    } as unknown as RunService;
    await runOnce(storage, failing);
    assert.equal((await storage.crons.get("bad"))?.next_run_at, Date.parse("2026-05-01T12:01:00Z"));
  });
});
