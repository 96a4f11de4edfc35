// The scaled-out agent server through a PostgreSQL outage (issue 14): the API and worker processes
// reach PostgreSQL through a TCP proxy the test cuts for 5 s, as a restart would (the shared
// server itself is left alone). Requests meanwhile get 503, no accepted run is lost, and every
// one ends afterwards. Needs DATABASE_URL and REDIS_URL; skips with a notice without them.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { Client } from "@langchain/langgraph-sdk";
import { sleepy, statusOf } from "./helpers.js";
import { mapLimit } from "./load-helpers.js";
import { PostgresProxy } from "./pg-proxy.js";
import { SCALED_SERVICES, skipWithoutServices, useScaledCluster } from "./scaled-helpers.js";

if (!SCALED_SERVICES) {
  skipWithoutServices("the PostgreSQL outage test is", "scaled-out agent server: PostgreSQL outage");
} else {
  const services = SCALED_SERVICES;
  let proxy: PostgresProxy | undefined;
  after(() => proxy?.close());
  const cluster = useScaledCluster(
    {
      apis: 1,
      workers: 1,
      env: async () => {
        const opened = await PostgresProxy.open(services.databaseUrl);
        proxy = opened.proxy;
        return { DATABASE_URI: opened.url };
      },
    },
    services,
  );

  describe("agent server scaled out: PostgreSQL restarted under load", () => {
    it("requests during the outage get 503; every run accepted before it reaches a terminal status", async () => {
      const [api] = cluster().clients as [Client];
      const threads = await Promise.all(Array.from({ length: 8 }, () => api.threads.create()));
      const runs: Array<{ thread: string; run: string }> = [];
      for (let round = 0; round < 3; round++)
        for (const [t, thread] of threads.entries()) {
          const run = await api.runs.create(thread.thread_id, "slow", {
            input: sleepy(400, `p${round}-${t}`),
          });
          runs.push({ thread: thread.thread_id, run: run.run_id });
        }
      await new Promise((resolve) => setTimeout(resolve, 500));
      proxy?.cut();
      try {
        const status = await statusOf(api.threads.get(threads[0]?.thread_id ?? ""));
        assert.equal(status, 503, "the API answers 503 while the database is away");
        const raw = await fetch(`${cluster().apis[0]?.url}/threads/${threads[0]?.thread_id}`);
        assert.equal(raw.status, 503);
        assert.equal(raw.headers.get("retry-after"), "2", "a 503 says when to send again");
        await new Promise((resolve) => setTimeout(resolve, 5_000));
      } finally {
        proxy?.restore();
      }
      // A hang here is a bug (a run left going after the outage): fail with what the rows and the
      // processes say rather than at the file's timeout with nothing to go on.
      let deadline: NodeJS.Timeout | undefined;
      const stuck = new Promise<never>((_, reject) => {
        deadline = setTimeout(async () => {
          const rows = await cluster()
            .query<{ run_id: string; status: string; attempt: number; lease_owner: string | null }>(
              "select run_id, status, attempt, lease_owner from runs where status in ('pending', 'running')",
            )
            .catch((error: unknown) => [{ error: String(error) }]);
          // Workers first and lines cut short: CI keeps only the head of a long failure message.
          const tails = [...cluster().workers, ...cluster().apis]
            .map((p) =>
              p
                .output()
                .split("\n")
                .slice(-15)
                .map((line) => line.slice(0, 300))
                .join("\n"),
            )
            .join("\n---\n");
          reject(new Error(`runs not over 120 s after the outage: ${JSON.stringify(rows)}\n${tails}`));
        }, 120_000);
      });
      try {
        await Promise.race([mapLimit(runs, 8, ({ thread, run }) => api.runs.join(thread, run)), stuck]);
      } finally {
        clearTimeout(deadline);
      }
      // A run whose checkpoint write failed mid-outage ends in error; none is lost or left going.
      const statuses = await Promise.all(runs.map(({ thread, run }) => api.runs.get(thread, run)));
      for (const run of statuses)
        assert.ok(["success", "error"].includes(run.status), `run ${run.run_id}: ${run.status}`);
      assert.ok(statuses.filter((r) => r.status === "success").length >= runs.length / 2);
      // And the server takes new work as before.
      const thread = threads[0]?.thread_id ?? "";
      const after = await api.runs.wait(thread, "slow", { input: sleepy(10, "after") });
      assert.ok(JSON.stringify(after).includes("done: after sleep 10"));
    });
  });
}
