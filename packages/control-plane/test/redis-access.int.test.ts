// Per-deployment Redis ACL users against a real Redis (REDIS_URL): the URL an agent server gets,
// the same password after a restart, the fallback when the control plane may not run ACL, the
// commands a deployment's user is refused (issue 27), and the warning about an open default user.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { after, describe, it, test } from "node:test";
import { STREAM_APPEND_SHA } from "@berth-platform/server-kit";
import { Redis } from "ioredis";
import { pino } from "pino";
import { CAN_RUN_PRIVATE_REDIS, PrivateRedis } from "../../../test/e2e/private-redis.js";
import {
  RedisAclAccess,
  redactRedisUrl,
  redisUrlAs,
  redisUserOf,
} from "../src/runtime/local/redis-access.js";

const REDIS_URL = process.env.REDIS_URL;

/** The commands of `commands` that `client` was not refused (NOPERM) — none, for a deployment. */
async function acceptedOf(client: Redis, commands: string[][]): Promise<string[]> {
  const accepted: string[] = [];
  for (const command of commands) {
    try {
      await client.call(command[0] as string, ...command.slice(1));
      accepted.push(command.join(" "));
    } catch (error) {
      // Redis 7 refuses DEBUG to everyone unless enable-debug-command allows it: a refusal too.
      if (!/NOPERM|DEBUG command not allowed/.test((error as Error).message))
        accepted.push(`${command.join(" ")}: ${(error as Error).message}`);
    }
  }
  return accepted;
}

/** A logger whose lines the test reads. */
function capturingLogger() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ level: "info" }, sink), lines };
}

describe("Redis URLs", () => {
  it("swaps the credential, keeps scheme, host, database and options; redacts passwords", () => {
    assert.equal(
      redisUrlAs("rediss://:cp-secret@cache:6380/2?family=6", "berth-dep-x", "p/w+="),
      "rediss://berth-dep-x:p%2Fw%2B%3D@cache:6380/2?family=6",
    );
    assert.equal(redactRedisUrl("redis://admin:cp-secret@cache:6379/0"), "redis://admin:***@cache:6379/0");
    assert.equal(redactRedisUrl("redis://cache:6379"), "redis://cache:6379");
  });
});

describe("RedisAclAccess with Redis unreachable", () => {
  it("a deploy gets its own user's URL and a deletion does not hang (both applied once Redis is back)", async () => {
    // Nothing listens on port 1: every command waits in ioredis's offline queue.
    const { logger, lines } = capturingLogger();
    const access = new RedisAclAccess("redis://:cp-secret@127.0.0.1:1", Buffer.alloc(32, 7), logger);
    try {
      const id = randomUUID();
      const granted = await access.grant(id);
      assert.equal(decodeURIComponent(new URL(granted.url).username), redisUserOf(id));
      await access.revoke(id);
      const text = lines.join("");
      assert.match(text, /not applied yet/);
      assert.match(text, /could not delete/);
      assert.ok(!text.includes("cp-secret"), "no password in the logs");
    } finally {
      await access.close();
    }
  });
});

if (!REDIS_URL) {
  test("Redis ACL users", { skip: "REDIS_URL is not set" }, () => {});
} else {
  describe("RedisAclAccess on a real Redis", () => {
    const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    const users: string[] = [];
    after(async () => {
      for (const user of users) await admin.call("ACL", "DELUSER", user);
      admin.disconnect();
    });

    it("gives each deployment its own user, with the same password after a restart", async () => {
      const id = randomUUID();
      users.push(redisUserOf(id));
      const secret = Buffer.alloc(32, 7);
      const first = new RedisAclAccess(REDIS_URL, secret, pino({ level: "silent" }));
      const granted = await first.grant(id);
      await first.close();
      assert.equal(granted.keyPrefix, `berth:deployment:${id}:`);
      assert.equal(decodeURIComponent(new URL(granted.url).username), redisUserOf(id));
      const restarted = new RedisAclAccess(REDIS_URL, secret, pino({ level: "silent" }));
      assert.equal((await restarted.grant(id)).url, granted.url);
      const agent = new Redis(granted.url, { maxRetriesPerRequest: 1 });
      try {
        assert.equal(await agent.call("EXISTS", `${granted.keyPrefix}stream:x`), 0);
      } finally {
        agent.disconnect();
      }
      await restarted.revoke(id);
      assert.equal(await admin.call("ACL", "GETUSER", redisUserOf(id)), null);
      await restarted.close();
    });

    it("a deployment's user may not run EVAL, SCRIPT, INFO, KEYS, FLUSH*, CONFIG, DEBUG…; EVALSHA of the loaded append script works on its own keys", async () => {
      const id = randomUUID();
      users.push(redisUserOf(id));
      const access = new RedisAclAccess(REDIS_URL, Buffer.alloc(32, 9), pino({ level: "silent" }));
      const granted = await access.grant(id);
      await access.close();
      // As a deployment's code would connect with the URL its agent server gets.
      const agent = new Redis(granted.url, { maxRetriesPerRequest: 1, enableReadyCheck: false });
      try {
        const own = `${granted.keyPrefix}stream:probe`;
        // Harmless scripts only: this Redis is shared, and a failing test must not block it.
        const refused: string[][] = [
          ["EVAL", "return 1", "0"],
          ["EVAL", "return 1", "1", own],
          ["EVAL_RO", "return 1", "0"],
          ["SCRIPT", "LOAD", "return 1"],
          ["SCRIPT", "KILL"],
          ["SCRIPT", "FLUSH"],
          ["SCRIPT", "EXISTS", STREAM_APPEND_SHA],
          ["FUNCTION", "LIST"],
          ["FCALL", "f", "0"],
          ["INFO"],
          ["INFO", "keyspace"],
          ["CONFIG", "GET", "*"],
          ["CONFIG", "SET", "slowlog-max-len", "128"],
          ["KEYS", "*"],
          ["SCAN", "0"],
          ["RANDOMKEY"],
          ["DBSIZE"],
          ["DEBUG", "SLEEP", "0"],
          ["MONITOR"],
          ["CLIENT", "LIST"],
          ["SLOWLOG", "GET"],
          ["ACL", "WHOAMI"],
          ["ACL", "LIST"],
          ["PSUBSCRIBE", "*"],
          ["PUBSUB", "CHANNELS"],
          ["SET", own, "x"],
          ["DEL", own],
          ["MULTI"],
          ["WAIT", "0", "0"],
          ["OBJECT", "ENCODING", own],
          ["MEMORY", "USAGE", own],
        ];
        const accepted = await acceptedOf(agent, refused);
        assert.deepEqual(accepted, [], "every command here is refused with NOPERM");
        // The append script, loaded by the control plane, runs by its SHA on the deployment's keys only.
        const channel = `${granted.keyPrefix}live:probe`;
        const id1 = await agent.evalsha(STREAM_APPEND_SHA, 2, own, channel, 10, "payload", 60_000);
        assert.match(String(id1), /^\d+-\d+$/);
        await assert.rejects(
          agent.evalsha(STREAM_APPEND_SHA, 2, "berth:deployment:other:stream:x", channel, 10, "p", 60_000),
          /NOPERM|No permissions/,
        );
        await admin.del(own);
      } finally {
        agent.disconnect();
      }
    });

    it("falls back to its own URL, warning once, when it may not create users", async () => {
      // A control plane whose Redis user may use Redis but not ACL.
      const limited = `berth-test-noacl-${randomUUID()}`;
      users.push(limited);
      await admin.call(
        "ACL",
        "SETUSER",
        limited,
        "reset",
        "on",
        ">limited-secret",
        "~*",
        "&*",
        "+@all",
        "-@admin",
      );
      const url = redisUrlAs(REDIS_URL, limited, "limited-secret");
      const { logger, lines } = capturingLogger();
      const access = new RedisAclAccess(url, Buffer.alloc(32, 7), logger);
      try {
        const ids = [randomUUID(), randomUUID()];
        for (const id of ids) users.push(redisUserOf(id));
        const [one, two] = [await access.grant(ids[0] as string), await access.grant(ids[1] as string)];
        assert.equal(one.url, url);
        assert.equal(two.url, url);
        assert.notEqual(one.keyPrefix, two.keyPrefix);
        assert.equal(await admin.call("ACL", "GETUSER", redisUserOf(ids[0] as string)), null);
        const warnings = lines.filter((line) => line.includes("cannot create ACL users"));
        assert.equal(warnings.length, 1, lines.join(""));
        assert.ok(!lines.join("").includes("limited-secret"), "no password in the logs");
        assert.match(warnings[0] as string, /\*\*\*@/);
      } finally {
        await access.close();
      }
    });
  });
}

describe("an open Redis `default` user (issue 27)", () => {
  it("starting against a Redis whose default user has no password logs a loud warning with the way out; with a password, none", {
    skip: !CAN_RUN_PRIVATE_REDIS && "no redis-server here",
  }, async () => {
    for (const password of [undefined, "default-user-secret"]) {
      const redis = new PrivateRedis(password);
      await redis.start();
      const { logger, lines } = capturingLogger();
      const access = new RedisAclAccess(redis.url, Buffer.alloc(32, 7), logger);
      try {
        await access.grant(randomUUID());
        const warned = lines.filter((line) => line.includes("INSECURE REDIS"));
        if (password === undefined) {
          assert.equal(warned.length, 1, lines.join(""));
          assert.match(warned[0] as string, /"level":50/);
          assert.match(warned[0] as string, /ACL SETUSER default on >PASSWORD/);
        } else {
          assert.deepEqual(warned, [], "a default user with a password is no way in");
          assert.ok(!lines.join("").includes(password), "no password in the logs");
        }
      } finally {
        await access.close();
        await redis.dispose();
      }
    }
  });
});

describe("a deployment's Redis user on a Redis of the test's own (issue 27)", () => {
  it("may not block, flush, reconfigure or stop Redis: endless EVAL, FLUSHALL, CONFIG SET, SHUTDOWN… are refused", {
    skip: !CAN_RUN_PRIVATE_REDIS && "no redis-server here",
  }, async () => {
    // The commands that would harm a shared Redis if the rules let them through.
    const redis = new PrivateRedis();
    await redis.start();
    const access = new RedisAclAccess(redis.url, Buffer.alloc(32, 9), pino({ level: "silent" }));
    // A command let through (an endless script) must fail the test, not hang it: Redis is
    // killed in `finally` whatever happened.
    const agent = new Redis((await access.grant(randomUUID())).url, {
      maxRetriesPerRequest: 1,
      enableReadyCheck: false,
      commandTimeout: 5_000,
    });
    try {
      const accepted = await acceptedOf(agent, [
        ["EVAL", "while true do end", "0"],
        ["FUNCTION", "LOAD", "#!lua name=x\nredis.register_function('f', function() while true do end end)"],
        ["FLUSHALL"],
        ["FLUSHDB"],
        ["CONFIG", "SET", "maxmemory", "1"],
        ["CLIENT", "PAUSE", "100000"],
        ["CLIENT", "KILL", "TYPE", "normal"],
        ["DEBUG", "SLEEP", "100"],
        ["BGSAVE"],
        ["SAVE"],
        ["REPLICAOF", "127.0.0.1", "1"],
        ["SHUTDOWN", "NOSAVE"],
      ]);
      assert.deepEqual(accepted, []);
      assert.ok(await redis.answers(), "Redis still answers");
    } finally {
      agent.disconnect();
      await access.close();
      await redis.dispose();
    }
  });
});
