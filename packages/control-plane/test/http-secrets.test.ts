// A secret's value never leaves in a response, a log line or the database (file or PostgreSQL rows).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { externalBody, usePlane } from "./helpers.js";
import { query } from "./postgres.js";

const MARKER = "SECRET-MARKER-7f3a9c";
const plane = usePlane();

describe("secrets", () => {
  it("are masked in every response, kept by a masked PATCH, and absent from logs and the database", async () => {
    const call = plane().call;
    const bodies: string[] = [];
    const record = async (options: Parameters<typeof call>[0]) => {
      const res = await call(options);
      bodies.push(res.body);
      return res;
    };
    const created = await record({
      method: "POST",
      url: "/v2/deployments",
      payload: externalBody("secretive", {
        secrets: [
          { name: "API_TOKEN", value: `${MARKER}-1` },
          { name: "OTHER", value: "o" },
        ],
      }),
    });
    assert.equal(created.statusCode, 201);
    const d = created.json();
    assert.deepEqual(d.secrets, [
      { name: "API_TOKEN", value: "********" },
      { name: "OTHER", value: "********" },
    ]);
    // Read back and send the masked list again, changing one value: the other keeps its stored value.
    const read = (await record({ method: "GET", url: `/v2/deployments/${d.id}` })).json();
    const secrets = read.secrets.map((s: { name: string; value: string }) =>
      s.name === "OTHER" ? { ...s, value: `${MARKER}-2` } : s,
    );
    await record({ method: "PATCH", url: `/v2/deployments/${d.id}`, payload: { secrets } });
    const latest = await plane().plane.storage.revisions.list(d.tenant_id, d.id, { limit: 1, offset: 0 });
    assert.deepEqual(latest[0]?.secrets, [
      { name: "API_TOKEN", value: `${MARKER}-1` },
      { name: "OTHER", value: `${MARKER}-2` },
    ]);
    // Errors must not echo values either.
    await record({
      method: "POST",
      url: "/v2/deployments",
      payload: externalBody("Bad Name", { secrets: [{ name: "X", value: MARKER }] }),
    });
    await record({
      method: "POST",
      url: "/v2/deployments",
      payload: externalBody("reserved", { secrets: [{ name: "POSTGRES_URI", value: MARKER }] }),
    });
    await record({
      method: "POST",
      url: "/v2/deployments",
      payload: externalBody("typed", {
        secrets: [
          { name: "X", value: MARKER, extra: 1 },
          { name: 2, value: MARKER },
        ],
      }),
    });
    await record({
      method: "PATCH",
      url: `/v2/deployments/${d.id}`,
      payload: { secrets: [{ name: "NEW", value: "********" }] },
    });
    await record({
      method: "POST",
      url: `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}/redeploy`,
    });
    await record({ method: "GET", url: `/v2/deployments/${d.id}/revisions` });
    await record({ method: "GET", url: "/v2/deployments?limit=100" });
    for (const body of bodies) assert.ok(!body.includes(MARKER), body);
    assert.ok(plane().logs.length > 0, "the logger is wired");
    for (const line of plane().logs) assert.ok(!line.includes(MARKER), line);
    await plane().plane.provisioner.idle();
    for (const file of fs.readdirSync(plane().dataDir)) {
      const full = path.join(plane().dataDir, file);
      if (!fs.statSync(full).isFile()) continue;
      assert.ok(!fs.readFileSync(full).includes(MARKER), `${file} holds the secret in plaintext`);
    }
    const postgres = plane().postgres;
    if (postgres) {
      const tables = await query(
        postgres.root,
        `select table_name from information_schema.tables where table_schema = '${postgres.name}'`,
      );
      for (const { table_name } of tables) {
        const rows = await query(
          postgres.root,
          `select t::text as row from "${postgres.name}"."${table_name}" t`,
        );
        for (const { row } of rows)
          assert.ok(!String(row).includes(MARKER), `${table_name} holds the secret`);
      }
      assert.ok(tables.some((t) => t.table_name === "revisions"));
    } else {
      assert.ok(fs.readdirSync(plane().dataDir).some((f) => f.startsWith("control-plane.sqlite")));
    }
  });
});
