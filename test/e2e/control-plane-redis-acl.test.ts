// Tenant isolation on a shared Redis (issue 14): `berth up --redis-url` gives each deployment's
// agent servers a Redis ACL user of their own, `berth-dep-<id>`, allowed only the deployment's key
// prefix and channels and the commands the agent server sends, instead of the control plane's
// credential. Checked through Redis directly (the user, its rules, what it may and may not touch,
// that the agent servers are connected as it) and through the official SDK (runs still run and
// stream over Redis). Needs REDIS_URL with a user that may run ACL (CI's default user).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fs from "node:fs";
import { after, before, describe, it, test } from "node:test";
import { Client } from "@langchain/langgraph-sdk";
import { Redis } from "ioredis";
import { ControlPlaneUnderTest, eventually } from "./control-plane-helpers.js";

const REDIS_URL = process.env.REDIS_URL;

/** `ACL GETUSER`'s flat reply as a record (null: no such user). */
async function aclUser(redis: Redis, user: string): Promise<Record<string, unknown> | null> {
  const reply = (await redis.call("ACL", "GETUSER", user)) as unknown[] | null;
  if (!reply) return null;
  const fields: Record<string, unknown> = {};
  for (let i = 0; i + 1 < reply.length; i += 2) fields[String(reply[i])] = reply[i + 1];
  return fields;
}

/** The user's entries in `ACL LOG` (the commands, keys and channels Redis refused it). */
async function refusals(redis: Redis, user: string): Promise<string[]> {
  const entries = (await redis.call("ACL", "LOG", "128")) as unknown[][];
  const found: string[] = [];
  for (const entry of entries) {
    const fields = new Map<string, unknown>();
    for (let i = 0; i + 1 < entry.length; i += 2) fields.set(String(entry[i]), entry[i + 1]);
    if (fields.get("username") === user) found.push(`${fields.get("reason")}:${fields.get("object")}`);
  }
  return found;
}

if (!REDIS_URL) {
  console.log("# REDIS_URL is not set: the per-deployment Redis user test is skipped.");
  test("per-deployment Redis ACL users", { skip: "REDIS_URL is not set" }, () => {});
} else {
  describe("berth up --redis-url: a Redis ACL user per deployment", () => {
    const plane = new ControlPlaneUnderTest("redis-acl-key-0123456789");
    const admin = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    const probes: Redis[] = [];
    let deploymentId = "";
    let user = "";

    before(async () => {
      await admin.connect();
      await plane.start(["--no-example", "--redis-url", REDIS_URL]);
      const deployment = await plane.deploySource("redis-acl", {
        secrets: [{ name: "GREETING", value: "hi" }],
      });
      deploymentId = deployment.id;
      user = `berth-dep-${deploymentId}`;
      await plane.waitFor(deploymentId, deployment.latest_revision_id, ["DEPLOYED"]);
    });
    after(async () => {
      for (const probe of probes) probe.disconnect();
      await plane.stop();
      plane.cleanup();
      // Whatever the test's outcome, leave no user behind on the shared Redis.
      if (user) await admin.call("ACL", "DELUSER", user);
      admin.disconnect();
    });

    it("the deployment's agent servers connect as its own user and still run and stream runs", async () => {
      const rules = await aclUser(admin, user);
      assert.ok(rules, `ACL user ${user} exists`);
      assert.deepEqual(rules.keys, `~berth:deployment:${deploymentId}:*`);
      assert.deepEqual(rules.channels, `&berth:deployment:${deploymentId}:*`);
      assert.ok((rules.flags as string[]).includes("on"));
      assert.equal((rules.passwords as string[]).length, 1);
      const commands = String(rules.commands);
      assert.match(commands, /^-@all /);
      for (const allowed of ["+evalsha", "+xrange", "+subscribe", "+publish", "+client|setname"])
        assert.ok(commands.split(" ").includes(allowed), `${allowed} in ${commands}`);

      const clients = String(await admin.call("CLIENT", "LIST"))
        .split("\n")
        .filter((line) => / name=berth-agent-server(-sub)? /.test(line));
      const ours = clients.filter((line) => line.includes(` user=${user} `));
      // The API connection and the subscriber of the deployment's one agent server.
      assert.ok(ours.length >= 2, `agent server connections as ${user}:\n${clients.join("\n")}`);

      const sdk = new Client({ apiUrl: `${plane.url}/agents/${deploymentId}`, apiKey: plane.key });
      // A stateless wait ends on the run-ended signal (pub/sub); a stream reads the Redis log.
      const waited = (await sdk.runs.wait(null, "echo", { input: { text: "acl" } })) as { reply: string };
      assert.equal(waited.reply, "hi, acl");
      const thread = await sdk.threads.create();
      const events: string[] = [];
      for await (const part of sdk.runs.stream(thread.thread_id, "echo", {
        input: { text: "streamed" },
        streamMode: ["values"],
      }))
        events.push(part.event);
      assert.deepEqual(events, ["metadata", "values", "values"]);
      // Nothing the agent server sent was refused.
      assert.deepEqual(await refusals(admin, user), []);
    });

    it("the credential the agent server got reaches the deployment's keys and channels only", async () => {
      // The agent server's own environment (same OS user here): its REDIS_URI names the
      // deployment's user, and its password is the one Redis holds for it.
      const { pid } = plane.runtimeState(deploymentId);
      const environ = fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      const uri = environ.find((entry) => entry.startsWith("REDIS_URI="))?.slice("REDIS_URI=".length);
      assert.ok(uri, "the agent server has REDIS_URI");
      const parsed = new URL(uri);
      assert.equal(decodeURIComponent(parsed.username), user);
      const password = decodeURIComponent(parsed.password);
      const rules = await aclUser(admin, user);
      assert.deepEqual(rules?.passwords, [createHash("sha256").update(password).digest("hex")]);

      const probe = new Redis(uri, { lazyConnect: true, maxRetriesPerRequest: 1, enableReadyCheck: false });
      probes.push(probe);
      await probe.connect();
      const own = `berth:deployment:${deploymentId}:stream:probe`;
      const other = "berth:deployment:00000000-0000-0000-0000-000000000000:stream:probe";
      assert.match(String(await probe.call("XADD", own, "*", "p", "x")), /^\d+-\d+$/);
      await admin.del(own);
      await assert.rejects(probe.call("XADD", other, "*", "p", "x"), /NOPERM/);
      await assert.rejects(probe.call("XRANGE", other, "-", "+"), /NOPERM/);
      assert.equal(await probe.publish(`berth:deployment:${deploymentId}:live:probe`, "x"), 0);
      await assert.rejects(
        probe.publish("berth:deployment:00000000-0000-0000-0000-000000000000:live:probe", "x"),
        /NOPERM/,
      );
      await assert.rejects(
        probe.subscribe("berth:deployment:00000000-0000-0000-0000-000000000000:signals"),
        /NOPERM/,
      );
      // Commands beyond the adapters' (SCAN and KEYS would list every deployment's keys).
      for (const command of [
        ["SET", own, "x"],
        ["SCAN", "0"],
        ["KEYS", "*"],
        ["ACL", "WHOAMI"],
        ["FLUSHALL"],
        // Scripts only by the SHA the control plane loaded; no INFO (issue 27).
        ["EVAL", "return 1", "0"],
        ["SCRIPT", "LOAD", "return 1"],
        ["INFO"],
      ])
        await assert.rejects(
          probe.call(command[0] as string, ...command.slice(1)),
          /NOPERM/,
          command.join(" "),
        );
    });

    it("deleting the deployment deletes its user", async () => {
      const removed = await plane.api("DELETE", `/v2/deployments/${deploymentId}`);
      assert.equal(removed.status, 204);
      await eventually(async () => (await aclUser(admin, user)) === null, `ACL user ${user} is deleted`);
    });
  });
}
