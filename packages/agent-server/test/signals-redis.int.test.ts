// Run signals over Redis between two "processes" (two connection pairs on one key prefix): a
// process alone on its channel stops publishing wake-ups and ends nobody hears, and starts again
// within a second of another process subscribing; cancels always go out. Needs REDIS_URL.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, test } from "node:test";
import pino from "pino";
import { RedisRunSignals } from "../src/queue/signals-redis.js";
import { closeRedis, connectRedis } from "../src/redis/connection.js";

const url = process.env.REDIS_URL;
const logger = pino({ level: "silent" });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

if (!url) {
  console.log("# REDIS_URL is not set: the Redis signal tests are skipped.");
  test("run signals over Redis", { skip: "REDIS_URL is not set" }, () => {});
} else {
  const prefix = `signals-test-${randomBytes(4).toString("hex")}:`;
  const connections: ReturnType<typeof connectRedis>[] = [];
  after(() => Promise.all(connections.map((c) => closeRedis(c))));
  const startProcess = async (name: string) => {
    const pub = connectRedis(url, name, logger);
    const sub = connectRedis(url, `${name}-sub`, logger);
    connections.push(pub, sub);
    const signals = new RedisRunSignals(pub, sub, prefix, logger);
    await signals.start();
    return signals;
  };

  test("alone, a process keeps ends to itself; another process hears them within a second of coming", async () => {
    const a = await startProcess("a");
    // Alone: the first end is published, and its answer says nobody else heard it.
    a.runEnded("r0", { status: "success" });
    await sleep(100);
    const answered = Date.now();
    const b = await startProcess("b");
    const heard: string[] = [];
    const cancels: string[] = [];
    b.onRunEnded("r1", () => heard.push("r1"));
    b.onRunEnded("r2", () => heard.push("r2"));
    b.onCancel("r3", () => cancels.push("r3"));
    a.cancel("r3");
    // Within the second after the answer (a slow start of b leaves this part unchecked).
    const whileAlone = Date.now() - answered < 800;
    a.runEnded("r1", { status: "success" });
    await sleep(1_200);
    // A second has passed: this end is published again, and from now on every one.
    a.runEnded("r2", { status: "success" });
    for (let i = 0; i < 50 && heard.length < 1; i++) await sleep(20);
    assert.deepEqual(cancels, ["r3"], "a cancel goes out even from a process that seemed alone");
    assert.ok(heard.includes("r2"), "the end a second later was published");
    if (whileAlone) assert.deepEqual(heard, ["r2"], "the end sent while alone was not published");
    const again: string[] = [];
    b.onRunEnded("r4", () => again.push("r4"));
    a.runEnded("r4", { status: "success" });
    for (let i = 0; i < 50 && again.length < 1; i++) await sleep(20);
    assert.deepEqual(again, ["r4"], "no longer alone: every end goes out");
  });
}
