// A run that was accepted is never lost: crash the server with runs pending and running, restart it
// on the same data directory, and every run completes.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { makeTempDir, spawnBerth } from "@berth-platform/testkit";
import { Client } from "@langchain/langgraph-sdk";
import { FIXTURE_CONFIG, sleepy } from "./helpers.js";

describe("durability", () => {
  const temp = makeTempDir();
  after(() => temp.cleanup());
  const args = ["dev", "--config", FIXTURE_CONFIG, "--port", "0", "--data-dir", temp.dir];

  for (const signal of ["SIGKILL", "SIGTERM"] as const) {
    it(`runs survive a ${signal} of the server and complete after the restart`, async () => {
      const first = await spawnBerth(args, { env: { BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: "0" } });
      const client = new Client({ apiUrl: first.url });
      const created: Array<{ thread: string; run: string; tag: string }> = [];
      for (let t = 0; t < 3; t += 1) {
        const thread = await client.threads.create();
        for (let r = 0; r < 3; r += 1) {
          const tag = `${signal}-t${t}-r${r}`;
          const run = await client.runs.create(thread.thread_id, "slow", { input: sleepy(400, tag) });
          created.push({ thread: thread.thread_id, run: run.run_id, tag });
        }
      }
      // Stop while some runs are running and others still wait behind them (polled, not timed).
      let statuses: string[] = [];
      for (let i = 0; i < 400 && !statuses.includes("running"); i += 1) {
        statuses = (await Promise.all(created.map((c) => client.runs.get(c.thread, c.run)))).map(
          (r) => r.status,
        );
        if (!statuses.includes("running")) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      assert.ok(
        statuses.includes("running") && statuses.includes("pending"),
        `some runs are running and some pending when the server stops (${statuses.join(",")})`,
      );
      await first.stop(signal);

      const second = await spawnBerth(args);
      try {
        const again = new Client({ apiUrl: second.url });
        for (const c of created) {
          await again.runs.join(c.thread, c.run);
          const run = await again.runs.get(c.thread, c.run);
          assert.equal(run.status, "success", `${c.tag} ended ${run.status}`);
        }
        for (const threadId of new Set(created.map((c) => c.thread))) {
          const state = await again.threads.getState(threadId);
          const contents = (state.values as { messages: Array<{ content: string }> }).messages.map(
            (m) => m.content,
          );
          const expected = created
            .filter((c) => c.thread === threadId)
            .flatMap((c) => [`${c.tag} sleep 400`, `done: ${c.tag} sleep 400`]);
          assert.deepEqual(
            contents,
            expected,
            "each run's input and answer appear once, in the order received",
          );
          assert.equal((await again.threads.get(threadId)).status, "idle");
        }
      } finally {
        await second.stop();
      }
    });
  }
});
