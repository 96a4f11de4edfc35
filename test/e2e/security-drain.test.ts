// SIGTERM is a bounded drain (issue 11, items 2 and 3): with clients attached (an SSE stream and a
// join) and a node that ignores its abort, the server stops claiming at once, answers 503 to new
// requests, ends open responses at the grace deadline and exits within grace + 5 s; the step that
// completed before the signal is kept, and runs it did not start run after the restart.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { makeTempDir, spawnBerth } from "@berth-platform/testkit";
import { Client } from "@langchain/langgraph-sdk";
import { FIXTURE_CONFIG } from "./helpers.js";

const GRACE_SECS = 3;

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("SIGTERM drain (issue 11 items 2, 3)", () => {
  const temp = makeTempDir();
  after(() => temp.cleanup());
  const args = (dir: string) => [
    "dev",
    "--config",
    FIXTURE_CONFIG,
    "--port",
    "0",
    "--data-dir",
    dir,
    "--n-jobs-per-worker",
    "2",
  ];
  const env = { BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: String(GRACE_SECS) };

  it("with an attached stream and join: 503 during the drain, no pickups, exit ≤ grace + 5 s, completed step kept", async () => {
    const dir = `${temp.dir}/attached`;
    const first = await spawnBerth(args(dir), { env });
    const pid1 = first.process.pid;
    const client = new Client({ apiUrl: first.url });
    const [t1, t2, t3] = await Promise.all([1, 2, 3].map(() => client.threads.create()));
    if (!t1 || !t2 || !t3) throw new Error("threads");
    // r1 will be stuck in a node that ignores the abort; r2 ends within the grace period; r3 waits
    // for a free slot, which r2 frees after the signal: it must not be claimed by this process.
    const r1 = await client.runs.create(t1.thread_id, "stubborn", { input: { hold_ms: 120_000 } });
    await until(
      async () =>
        ((await client.threads.getState(t1.thread_id)).values as { log?: string[] }).log?.length === 1,
      "r1 completed its first step",
    );
    const r2 = await client.runs.create(t2.thread_id, "stubborn", { input: { hold_ms: 1_500 } });
    await until(async () => (await client.runs.get(t2.thread_id, r2.run_id)).status === "running", "r2 runs");
    const r3 = await client.runs.create(t3.thread_id, "stubborn", { input: { hold_ms: 10 } });
    assert.equal((await client.runs.get(t3.thread_id, r3.run_id)).status, "pending");

    // Attached clients: an SSE join of r1 and a blocking join of r3.
    const streamEnded = (async () => {
      const events: string[] = [];
      try {
        for await (const chunk of client.runs.joinStream(t1.thread_id, r1.run_id)) events.push(chunk.event);
      } catch {
        // a cut connection is an end too
      }
      return events;
    })();
    const joinEnded = fetch(`${first.url}/threads/${t3.thread_id}/runs/${r3.run_id}/join`).then(
      async (res) => {
        await res.text().catch(() => "");
        return res.status;
      },
      () => -1,
    );
    await new Promise((r) => setTimeout(r, 300));

    const started = Date.now();
    first.process.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 300));
    const during = await fetch(`${first.url}/info`).then(
      (res) => res.status,
      (error: Error) => `refused (${error.message})`,
    );
    assert.equal(during, 503, "a new request during the drain is answered 503");
    // Wait for the exit without a second signal (which would mean "exit at once").
    if (first.process.exitCode === null && first.process.signalCode === null)
      await new Promise((resolve) => first.process.once("exit", resolve));
    assert.equal(first.process.exitCode, 0, first.output());
    const elapsed = (Date.now() - started) / 1000;
    if (process.env.BERTH_PRINT_TIMES) console.log(`exit ${elapsed.toFixed(2)} s after SIGTERM`);
    assert.ok(
      elapsed <= GRACE_SECS + 5,
      `exited ${elapsed.toFixed(1)} s after SIGTERM (grace ${GRACE_SECS} s)`,
    );
    await Promise.all([streamEnded, joinEnded]);

    const second = await spawnBerth(args(dir), { env: { BERTH_FIXTURE_NO_HOLD: "1" } });
    try {
      const again = new Client({ apiUrl: second.url });
      const pid2 = second.process.pid;
      for (const [thread, run] of [
        [t1, r1],
        [t2, r2],
        [t3, r3],
      ] as const) {
        await again.runs.join(thread.thread_id, run.run_id);
        assert.equal((await again.runs.get(thread.thread_id, run.run_id)).status, "success");
      }
      const logOf = async (threadId: string) =>
        ((await again.threads.getState(threadId)).values as { log: string[] }).log;
      // r1's first step ran once, before the signal; its second step after the restart.
      assert.deepEqual(await logOf(t1.thread_id), [`first@${pid1}`, `second@${pid2}`]);
      assert.deepEqual(await logOf(t2.thread_id), [`first@${pid1}`, `second@${pid1}`]);
      // r3 became claimable during the drain and was left for the next process.
      assert.deepEqual(await logOf(t3.thread_id), [`first@${pid2}`, `second@${pid2}`]);
    } finally {
      await second.stop();
    }
  });

  it("without clients: a node ignoring its abort does not hold the exit past grace + 5 s", async () => {
    const server = await spawnBerth(args(`${temp.dir}/bare`), { env });
    const client = new Client({ apiUrl: server.url });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "stubborn", { input: { hold_ms: 120_000 } });
    await until(
      async () => (await client.runs.get(thread.thread_id, run.run_id)).status === "running",
      "it runs",
    );
    const started = Date.now();
    await server.stop("SIGTERM");
    const elapsed = (Date.now() - started) / 1000;
    if (process.env.BERTH_PRINT_TIMES) console.log(`exit ${elapsed.toFixed(2)} s after SIGTERM`);
    assert.ok(
      elapsed <= GRACE_SECS + 5,
      `exited ${elapsed.toFixed(1)} s after SIGTERM (grace ${GRACE_SECS} s)`,
    );
  });
});
