// Per-deployment Redis ACL users against a real Redis (REDIS_URL): the URL an agent server gets,
// the same password after a restart, and the fallback when the control plane may not run ACL.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { after, describe, it, test } from "node:test";
import { Redis } from "ioredis";
import { pino } from "pino";
import {
  RedisAclAccess,
  redactRedisUrl,
  redisUrlAs,
  redisUserOf,
} from "../src/runtime/local/redis-access.js";

const REDIS_URL = process.env.REDIS_URL;

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
