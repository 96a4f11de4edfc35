// Faults of the control plane's storage (issue 27): a PostgreSQL of the test's own stopped and
// started again (requests meanwhile get 503 with Retry-After, never 500; a trace run answered 202
// is stored), and a SQLite data directory on a tiny tmpfs that fills up (507, never a 202 for a run
// that is not stored).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, describe, it } from "node:test";
import { promisify } from "node:util";
import { makeTempDir } from "@berth-platform/testkit";
import pino from "pino";
import { CAN_RUN_PRIVATE_POSTGRES, PrivatePostgres } from "../../../test/e2e/private-postgres.js";
import { parseControlPlaneConfig } from "../src/config.js";
import { type ControlPlane, createControlPlane } from "../src/server.js";
import { externalBody } from "./helpers.js";
import { rootRun } from "./langsmith-ingest-helpers.js";

const exec = promisify(execFile);
const KEY = "outage-test-admin-key-0123456789";
const headers = { "x-api-key": KEY };

async function openPlane(dataDir: string, databaseUrl?: string): Promise<ControlPlane> {
  const config = parseControlPlaneConfig({
    flags: { port: 0, dataDir, apiKey: KEY, databaseUrl },
    env: {},
    cwd: dataDir,
  });
  return createControlPlane(config, { logger: pino({ level: "silent" }) });
}

function traceRun(bytes = 0) {
  return rootRun("outage", { inputs: { text: "x".repeat(bytes) } });
}

/** Every run id that was answered 202 can be read back. */
async function assertStored(plane: ControlPlane, ids: string[]): Promise<void> {
  const missing: string[] = [];
  for (const id of ids) {
    const res = await plane.app.inject({ method: "GET", url: `/langsmith-api/runs/${id}`, headers });
    if (res.statusCode !== 200) missing.push(`${id}: ${res.statusCode}`);
  }
  assert.deepEqual(missing, [], "every run answered 202 is stored");
}

describe("a PostgreSQL restart", () => {
  const pg = new PrivatePostgres();
  const temp = makeTempDir("berth-outage-");
  let plane: ControlPlane | undefined;
  after(async () => {
    await plane?.close().catch(() => {});
    await pg.dispose();
    temp.cleanup();
  });

  it("answers 503 with Retry-After while it is down (never 500), and keeps every run it answered 202", {
    skip: !CAN_RUN_PRIVATE_POSTGRES && "no PostgreSQL binaries here",
    timeout: 300_000,
  }, async () => {
    await pg.start();
    const cp = await openPlane(temp.dir, pg.url);
    plane = cp;
    const created = await cp.app.inject({
      method: "POST",
      url: "/v2/deployments",
      headers,
      payload: externalBody("outage"),
    });
    assert.equal(created.statusCode, 201, created.body);
    const accepted: string[] = [];
    const statuses = new Map<number, number>();
    const send = async () => {
      const run = traceRun();
      const res = await cp.app.inject({
        method: "POST",
        url: "/langsmith-api/runs",
        headers,
        payload: run,
      });
      assert.ok(res);
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      if (res.statusCode === 202) accepted.push(run.id);
      else {
        assert.equal(res.statusCode, 503, res.body);
        assert.equal(res.headers["retry-after"], "2");
      }
    };
    for (let i = 0; i < 20; i++) await send();

    await pg.stop();
    const during = new Map<number, number>();
    for (let i = 0; i < 30; i++) {
      const list = await cp.app.inject({ method: "GET", url: "/v2/deployments", headers });
      during.set(list.statusCode, (during.get(list.statusCode) ?? 0) + 1);
      assert.equal(list.statusCode, 503, list.body);
      assert.equal(list.headers["retry-after"], "2");
      assert.match((list.json() as { detail: string }).detail, /database is unavailable/);
      await send();
    }
    console.log(
      `# while down: /v2/deployments ${JSON.stringify([...during])}; ingest ${JSON.stringify([...statuses])}`,
    );
    assert.equal(statuses.get(500), undefined);

    await pg.start();
    const backAt = Date.now();
    let back = 0;
    while (Date.now() - backAt < 60_000) {
      back = (await cp.app.inject({ method: "GET", url: "/v2/deployments", headers })).statusCode;
      if (back === 200) break;
      assert.equal(back, 503);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(back, 200, "answers again once PostgreSQL is back");
    console.log(`# answering again ${Date.now() - backAt} ms after PostgreSQL started`);
    for (let i = 0; i < 20; i++) await send();
    await assertStored(cp, accepted);
    assert.ok(accepted.length >= 40, `runs accepted before and after: ${accepted.length}`);
  });
});

describe("a full disk", () => {
  const temp = makeTempDir("berth-full-");
  let mounted = false;
  let plane: ControlPlane | undefined;
  after(async () => {
    await plane?.close().catch(() => {});
    if (mounted) await exec("umount", [temp.dir]).catch(() => exec("umount", ["-l", temp.dir]));
    temp.cleanup();
  });

  it("answers 507 once the data directory's disk is full, and every run answered 202 is stored", {
    skip: process.getuid?.() !== 0 && "mounting a tmpfs needs root",
    timeout: 300_000,
  }, async () => {
    await exec("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", temp.dir]);
    mounted = true;
    const cp = await openPlane(temp.dir);
    plane = cp;
    const accepted: string[] = [];
    const statuses = new Map<number, number>();
    let full: { statusCode: number; body: string } | undefined;
    for (let i = 0; i < 400 && !full; i++) {
      const run = traceRun(16 * 1024);
      const res = await cp.app.inject({
        method: "POST",
        url: "/langsmith-api/runs",
        headers,
        payload: run,
      });
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      if (res.statusCode === 202) accepted.push(run.id);
      else full = res;
    }
    console.log(`# until full: ${JSON.stringify([...statuses])}`);
    assert.ok(full, "the disk filled up");
    assert.equal(full.statusCode, 507, full.body);
    assert.match((JSON.parse(full.body) as { detail: string }).detail, /storage is full/);
    // Still full: the next ones are refused the same way, and nothing answered 202 was lost.
    for (let i = 0; i < 5; i++) {
      const res = await cp.app.inject({
        method: "POST",
        url: "/langsmith-api/runs",
        headers,
        payload: traceRun(16 * 1024),
      });
      assert.equal(res.statusCode, 507, res.body);
    }
    await assertStored(cp, accepted);
  });
});
