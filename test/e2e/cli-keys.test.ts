// `berth keys` / `berth workspaces` through the spawned CLI against a spawned `berth up` (issue 13):
// keys shown once, listed by prefix, revoked; workspaces; offline minting from the data directory;
// an --api-key that the data directory does not know stops `berth up` with a reason.
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempDir, type SpawnedServer, spawnBerth } from "@berth-platform/testkit";
import { runBerth as berth, jsonLines } from "./cli-helpers.js";

const KEY = "cli-keys-admin-key-0123456789abcdef";

describe("berth keys and berth workspaces", () => {
  const temp = makeTempDir();
  const dataDir = path.join(temp.dir, "cp");
  let server: SpawnedServer;
  let env: Record<string, string>;
  before(async () => {
    server = await spawnBerth(["up", "--port", "0", "--data-dir", dataDir, "--api-key", KEY, "--no-runtime"]);
    env = { BERTH_URL: server.url, BERTH_API_KEY: KEY };
  });
  after(async () => {
    await server?.stop();
    temp.cleanup();
  });

  it("creates a member key shown once, lists it by prefix (text and --json), and revokes it", async () => {
    const created = await berth(["keys", "create", "--role", "member", "--description", "ci", "--json"], env);
    assert.equal(created.status, 0, created.stderr);
    const [key] = jsonLines(created.stdout);
    assert.ok(key && typeof key.key === "string" && typeof key.id === "string");
    const member = key.key as string;
    const text = await berth(["keys", "list"], env);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /ID\s+PREFIX\s+ROLE/);
    assert.ok(text.stdout.includes(member.slice(0, 12)), "the prefix is listed");
    assert.ok(!text.stdout.includes(member), "the key is not");
    const asMember = await berth(["keys", "list"], { ...env, BERTH_API_KEY: member });
    assert.equal(asMember.status, 1);
    assert.match(asMember.stderr, /403.*member role/);
    const revoked = await berth(["keys", "revoke", key.id as string], env);
    assert.equal(revoked.status, 0, revoked.stderr);
    const after = await fetch(`${server.url}/v2/deployments`, { headers: { "X-Api-Key": member } });
    assert.equal(after.status, 401);
  });

  it("creates a workspace and lists the workspaces the key reaches", async () => {
    const created = await berth(["workspaces", "create", "staging", "--json"], env);
    assert.equal(created.status, 0, created.stderr);
    const [workspace] = jsonLines(created.stdout);
    assert.equal(workspace?.display_name, "staging");
    const list = await berth(["workspaces", "list", "--json"], env);
    const names = jsonLines(list.stdout).map((w) => w.display_name);
    assert.deepEqual(names.sort(), ["default", "staging"]);
    const ambiguous = await berth(["keys", "list"], env);
    assert.equal(ambiguous.status, 1);
    assert.match(ambiguous.stderr, /workspace specification/);
    const scoped = await berth(["keys", "list", "--workspace", workspace?.id as string, "--json"], env);
    assert.equal(scoped.status, 0, scoped.stderr);
  });

  it("mints an admin key offline from the data directory while berth up runs; the key works at once", async () => {
    const minted = await berth(["keys", "create", "--data-dir", dataDir, "--role", "admin", "--json"]);
    assert.equal(minted.status, 0, minted.stderr);
    const [key] = jsonLines(minted.stdout);
    assert.ok(key);
    assert.equal(key.role, "admin");
    assert.equal((key.workspace_ids as string[]).length, 2, "every workspace by default");
    const res = await fetch(`${server.url}/api/v1/workspaces`, {
      headers: { "X-Api-Key": key.key as string },
    });
    assert.equal(res.status, 200);
    const missing = await berth([
      "keys",
      "create",
      "--data-dir",
      path.join(temp.dir, "nowhere"),
      "--role",
      "admin",
    ]);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /No control plane database/);
  });

  it("berth up with an --api-key this non-empty data directory does not know exits with the reason", async () => {
    const other = makeTempDir();
    try {
      const dir = path.join(other.dir, "cp");
      const first = await spawnBerth([
        "up",
        "--port",
        "0",
        "--data-dir",
        dir,
        "--api-key",
        KEY,
        "--no-runtime",
      ]);
      await first.stop();
      const second = await berth([
        "up",
        "--port",
        "0",
        "--data-dir",
        dir,
        "--api-key",
        "some-other-key-0123456789",
        "--no-runtime",
      ]);
      assert.equal(second.status, 1);
      assert.match(second.stderr, /not a key of this data directory/);
      assert.match(second.stderr, /berth keys create --data-dir/);
    } finally {
      other.cleanup();
    }
  });
});

describe("log format (issue 13)", () => {
  it("berth up logs JSON lines when stdout is not a terminal, and readable lines with --log-format pretty", async () => {
    for (const format of ["json", "pretty"] as const) {
      const temp = makeTempDir();
      try {
        const server = await spawnBerth(
          ["up", "--port", "0", "--data-dir", path.join(temp.dir, "cp"), "--api-key", KEY, "--no-runtime"],
          {
            env: { BERTH_LOG_LEVEL: "info", ...(format === "pretty" ? { BERTH_LOG_FORMAT: "pretty" } : {}) },
          },
        );
        // A failing bootstrap-free request logs nothing; the provisioner's start line is enough.
        await new Promise((r) => setTimeout(r, 300));
        await server.stop();
        const out = server.output();
        if (format === "json") assert.match(out, /^\{"level":30,/m, out);
        else {
          assert.doesNotMatch(out, /^\{"level"/m, out);
          assert.match(out, /INFO/, out);
        }
      } finally {
        temp.cleanup();
      }
    }
  });
});
