// Webhooks: delivered when a run ends, retried after a failure; private targets refused by default.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { makeTempDir, spawnBerth } from "@berth-platform/testkit";
import { Client } from "@langchain/langgraph-sdk";
import { FIXTURE_CONFIG, statusOf, useFixtureServer } from "./helpers.js";

const allowed = useFixtureServer({ BERTH_WEBHOOK_ALLOW_PRIVATE: "true", BERTH_WEBHOOK_RETRY_MS: "50" });

/** A receiver on loopback that answers 500 to the first `failFirst` posts, then 200. */
function receiver(failFirst: number) {
  const bodies: Array<Record<string, unknown>> = [];
  let calls = 0;
  const waiters: Array<() => void> = [];
  const server = createServer((req: IncomingMessage, res) => {
    let text = "";
    req.on("data", (chunk) => {
      text += chunk;
    });
    req.on("end", () => {
      calls += 1;
      bodies.push(JSON.parse(text) as Record<string, unknown>);
      res.statusCode = calls <= failFirst ? 500 : 200;
      res.end();
      for (const w of waiters.splice(0)) w();
    });
  });
  return {
    server,
    bodies,
    get calls() {
      return calls;
    },
    async until(n: number) {
      const deadline = Date.now() + 10_000;
      while (calls < n && Date.now() < deadline)
        await new Promise<void>((r) => waiters.push(r) && setTimeout(r, 200));
      assert.ok(calls >= n, `received ${calls} of ${n} posts`);
    },
  };
}

describe("webhooks", () => {
  const hook = receiver(1);
  let url = "";
  before(async () => {
    hook.server.listen(0, "127.0.0.1");
    await once(hook.server, "listening");
    url = `http://127.0.0.1:${(hook.server.address() as AddressInfo).port}/hook?token=secret`;
  });
  after(() => hook.server.close());

  it("posts the finished run with its values, and retries after a 500", async () => {
    const client = allowed.client();
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "echo", {
      input: { messages: [{ role: "user", content: "notify me" }] },
      webhook: url,
    });
    await hook.until(2);
    const body = hook.bodies.at(-1) ?? {};
    assert.equal(body.run_id, run.run_id);
    assert.equal(body.thread_id, thread.thread_id);
    assert.equal(body.status, "success");
    for (const key of ["run_started_at", "run_ended_at", "webhook_sent_at", "kwargs"])
      assert.ok(key in body, key);
    const values = body.values as { messages: Array<{ content: string }> };
    assert.equal(values.messages.at(-1)?.content, "notify me");
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(hook.calls, 2, "no more posts once one succeeded");
  });

  it("refuses loopback and private targets unless the server allows them", async () => {
    const temp = makeTempDir();
    const strict = await spawnBerth([
      "dev",
      "--config",
      FIXTURE_CONFIG,
      "--port",
      "0",
      "--data-dir",
      temp.dir,
    ]);
    try {
      const client = new Client({ apiUrl: strict.url });
      const thread = await client.threads.create();
      for (const target of [
        url,
        "http://localhost:9/x",
        "http://[::1]:9/",
        "http://169.254.169.254/latest",
        "http://10.1.2.3/",
        // IPv6 spellings that carry a private IPv4 address (issue 11 item 11)
        "http://[64:ff9b::7f00:1]:9/", // NAT64 of 127.0.0.1
        "http://[64:ff9b::a9fe:a9fe]/", // NAT64 of 169.254.169.254
        "http://[::7f00:1]:9/", // IPv4-compatible 127.0.0.1
        "http://[::127.0.0.1]:9/",
        "http://[2002:7f00:1::1]:9/", // 6to4 of 127.0.0.1
        "http://[2002:a9fe:a9fe::]/", // 6to4 of 169.254.169.254
        "http://[::ffff:7f00:1]:9/",
        "http://[::ffff:10.0.0.1]/",
        "http://[fe80::1]/",
        "http://0x7f000001/",
        "http://2130706433/",
        "http://127.1/",
      ]) {
        const status = await statusOf(
          client.runs.create(thread.thread_id, "echo", { input: { messages: [] }, webhook: target }),
        );
        assert.equal(status, 422, target);
      }
    } finally {
      await strict.stop();
      temp.cleanup();
    }
  });
});
