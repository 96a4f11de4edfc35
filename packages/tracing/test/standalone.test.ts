// The tracing package on its own (no control plane): the official SDK's traceable delivers to it
// and reads back, and a wrong key is refused.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempDir } from "@berth-platform/testkit";
import { Client } from "langsmith";
import { traceable } from "langsmith/traceable";
import pino from "pino";
import { type StandaloneTracing, startStandaloneTracing } from "../src/index.js";

const KEY = "standalone-key-0123456789";
let server: StandaloneTracing;
const temp = makeTempDir("berth-tracing-");

before(async () => {
  server = await startStandaloneTracing({
    file: path.join(temp.dir, "tracing.sqlite"),
    apiKey: KEY,
    logger: pino({ level: "silent" }),
  });
});
after(async () => {
  await server.close();
  temp.cleanup();
});

describe("tracing standalone", () => {
  it("traceable runs land and read back through the SDK", async () => {
    const client = new Client({ apiUrl: server.url, apiKey: KEY, callerOptions: { maxRetries: 0 } });
    const project = `alone-${randomUUID().slice(0, 8)}`;
    const run = traceable(async (x: number) => x + 1, {
      name: "plus-one",
      client,
      project_name: project,
      tracingEnabled: true,
    });
    assert.equal(await run(41), 42);
    await client.awaitPendingTraceBatches();
    const read = await client.readProject({ projectName: project });
    assert.equal(read.name, project);
    const runs = [];
    for await (const r of client.listRuns({ projectName: project })) runs.push(r);
    assert.equal(runs.length, 1);
    assert.equal(runs[0]?.name, "plus-one");
    assert.deepEqual(runs[0]?.outputs, { outputs: 42 });
  });

  it("refuses another key (401 {detail})", async () => {
    const res = await fetch(`${server.url}/sessions`, { headers: { "x-api-key": "wrong" } });
    assert.equal(res.status, 401);
    assert.ok(((await res.json()) as { detail: string }).detail);
  });
});
