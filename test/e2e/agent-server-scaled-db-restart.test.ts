// The scaled-out agent server through a PostgreSQL outage (issue 14): the API and worker processes
// reach PostgreSQL through a TCP proxy the test cuts for 5 s, as a restart would (the shared
// server itself is left alone). Requests meanwhile get 503, no accepted run is lost, and every
// one ends afterwards. Needs DATABASE_URL and REDIS_URL; skips with a notice without them.
import assert from "node:assert/strict";
import net from "node:net";
import { after, describe, it, test } from "node:test";
import type { Client } from "@langchain/langgraph-sdk";
import { sleepy, statusOf } from "./helpers.js";
import { mapLimit } from "./load-helpers.js";
import { SCALED_SERVICES, useScaledCluster } from "./scaled-helpers.js";

/**
 * A TCP proxy to PostgreSQL that can be cut (every connection dropped, new ones reset at once) and
 * restored. It keeps listening while cut: closing and re-binding its port raced with other
 * processes' ephemeral ports, and a lost bind hung the test until its timeout.
 */
class CuttableProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private isCut = false;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    const server = net.createServer((client) => {
      if (this.isCut) {
        client.destroy();
        return;
      }
      const upstream = net.connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        socket.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", resolve);
    });
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
  }

  cut(): void {
    this.isCut = true;
    for (const socket of this.sockets) socket.destroy();
  }

  restore(): void {
    this.isCut = false;
  }

  async close(): Promise<void> {
    this.cut();
    const server = this.server;
    this.server = undefined;
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}

if (!SCALED_SERVICES) {
  console.log("# DATABASE_URL or REDIS_URL is not set: the PostgreSQL outage test is skipped.");
  test("scaled-out agent server: PostgreSQL outage", {
    skip: "DATABASE_URL or REDIS_URL is not set",
  }, () => {});
} else {
  const target = new URL(SCALED_SERVICES.databaseUrl);
  const proxy = new CuttableProxy({ host: target.hostname, port: Number(target.port || 5432) });
  after(() => proxy.close());
  const databaseUrl = SCALED_SERVICES.databaseUrl;
  const cluster = useScaledCluster(
    {
      apis: 1,
      workers: 1,
      env: async () => {
        await proxy.open();
        const viaProxy = new URL(databaseUrl);
        viaProxy.hostname = "127.0.0.1";
        viaProxy.port = String(proxy.port);
        return { DATABASE_URI: viaProxy.toString() };
      },
    },
    SCALED_SERVICES,
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
      proxy.cut();
      try {
        const status = await statusOf(api.threads.get(threads[0]?.thread_id ?? ""));
        assert.equal(status, 503, "the API answers 503 while the database is away");
        const raw = await fetch(`${cluster().apis[0]?.url}/threads/${threads[0]?.thread_id}`);
        assert.equal(raw.status, 503);
        assert.equal(raw.headers.get("retry-after"), "2", "a 503 says when to send again");
        await new Promise((resolve) => setTimeout(resolve, 5_000));
      } finally {
        proxy.restore();
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
          const tails = [...cluster().apis, ...cluster().workers]
            .map((p) => p.output().split("\n").slice(-15).join("\n"))
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
