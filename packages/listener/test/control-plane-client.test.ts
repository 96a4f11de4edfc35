// The listener's client of the listener-facing API: its key on every request, 409 as a refused
// move (not an error), and deploy-log lines sent in batches that stay under the body limit.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { ControlPlaneClient } from "../src/index.js";

const ID = "7d3f6c1e-0000-4000-8000-00000000000a";
const bodies: Array<{ url: string; auth: string | undefined; size: number; json: { lines?: unknown[] } }> =
  [];
let server: http.Server;
let client: ControlPlaneClient;

before(async () => {
  server = http.createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      bodies.push({
        url: req.url ?? "",
        auth: req.headers.authorization,
        size: Buffer.byteLength(text),
        json: text ? JSON.parse(text) : {},
      });
      if (req.url?.endsWith("/status")) {
        const refused = (JSON.parse(text) as { status: string }).status === "DEPLOYED";
        res.writeHead(refused ? 409 : 200, { "content-type": "application/json" });
        res.end(JSON.stringify(refused ? { detail: "Revision is INTERRUPTED" } : { status: "DEPLOYING" }));
        return;
      }
      res.writeHead(req.url?.endsWith("/logs") ? 204 : 500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  client = new ControlPlaneClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, ID, "k-1");
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("ControlPlaneClient", () => {
  it("reports with the listener's key; a 409 is a refused move", async () => {
    assert.equal(await client.report("d", "r", { status: "DEPLOYING" }), true);
    assert.equal(await client.report("d", "r", { status: "DEPLOYED" }), false);
    assert.equal(bodies.at(-1)?.url, `/v2/listeners/${ID}/deployments/d/revisions/r/status`);
    assert.equal(bodies.at(-1)?.auth, "Bearer k-1");
    await assert.rejects(client.desiredState(), /control plane answered 500/);
  });

  it("sends long logs in batches under 1 MiB, every line once and in order, each cut to 16 KiB", async () => {
    bodies.length = 0;
    const lines = Array.from({ length: 700 }, (_, i) => ({
      level: "INFO" as const,
      message: `${i} ${"x".repeat(i === 0 ? 40_000 : 2_000)}`,
    }));
    await client.appendLogs("d", "r", lines);
    assert.ok(bodies.length > 1);
    for (const b of bodies) assert.ok(b.size < 1024 * 1024, `batch of ${b.size} bytes`);
    const sent = bodies.flatMap((b) => (b.json.lines ?? []) as Array<{ message: string }>);
    assert.equal(sent.length, 700);
    assert.deepEqual(
      sent.map((l) => Number(l.message.split(" ")[0])),
      lines.map((_, i) => i),
    );
    assert.equal(sent[0]?.message.length, 16_384);
  });
});
