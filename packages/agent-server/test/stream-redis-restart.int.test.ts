// The Redis stream broker across a Redis restart (data gone, as after SHUTDOWN NOSAVE): a subscriber
// on one connection pair, a writer appending every few ms on another, Redis killed mid-stream and
// started again. The subscriber must receive every event once, in order. Before the fix, a catch-up
// read ran as soon as ioredis said "ready", before Redis confirmed the re-subscription, and events
// appended in that window were lost (test/e2e/agent-server-scaled's Redis outage test, 1 run in 3);
// appends re-sent after NOSCRIPT could overtake older ones; and what the old Redis had stored was
// gone from the log.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PrivateRedis } from "../../../test/e2e/private-redis.js";
import { testBroker } from "./redis-broker.js";

const REDIS_SERVER_PRESENT = await import("node:fs").then((fs) => fs.existsSync("/usr/bin/redis-server"));

const redis = new PrivateRedis();

function broker(name: string) {
  return testBroker(redis.url, { prefix: "restart-test:", name, maxEvents: 100_000 });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

if (!REDIS_SERVER_PRESENT) {
  console.log("# /usr/bin/redis-server is missing: the Redis restart test of the stream broker is skipped.");
  test("stream broker across a Redis restart", { skip: "needs /usr/bin/redis-server" }, () => {});
} else {
  before(() => redis.start());
  after(() => redis.dispose());

  for (const round of [1, 2, 3]) {
    test(`stream broker across a Redis restart (round ${round}): every event once, in order`, async () => {
      const writer = broker("writer");
      const reader = broker("reader");
      const runId = `run-${round}`;
      const received: number[] = [];
      let ended!: () => void;
      const end = new Promise<void>((resolve) => {
        ended = resolve;
      });
      const subscribed = new Promise<void>((resolve) => {
        reader.instance.subscribe(runId, { lastEventId: "-1", onReplayed: () => resolve() }, (message) => {
          if (message.kind === "end") ended();
          else received.push((message.event.data as { n: number }).n);
        });
      });
      try {
        await subscribed;
        let n = 0;
        let writing = true;
        const writing$ = (async () => {
          while (writing) {
            writer.instance.publish(runId, "values", { n: n++ });
            await sleep(2);
          }
        })();
        await sleep(200);
        await redis.stop();
        await sleep(500 + round * 300);
        await redis.start();
        // Appends go on through the reconnects of both sides (0.2–2 s apart).
        await sleep(3_000);
        writing = false;
        await writing$;
        writer.instance.end(runId);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          end,
          new Promise((_, reject) => {
            timer = setTimeout(
              () => reject(new Error(`no end; received ${received.length} of ${n}`)),
              30_000,
            );
          }),
        ]).finally(() => clearTimeout(timer));
        const missing = Array.from({ length: n }, (_, i) => i).filter((i) => !received.includes(i));
        assert.deepEqual(missing, [], "no event lost");
        assert.deepEqual(
          received,
          Array.from({ length: n }, (_, i) => i),
          "each once, in order",
        );
        // A client joining now from the start reads the whole log: what was stored before the
        // restart was written back under its ids (the restarted Redis came back empty).
        const replayed: number[] = [];
        await new Promise<void>((resolve) => {
          reader.instance.subscribe(runId, { lastEventId: "-1" }, (message) => {
            if (message.kind === "end") resolve();
            else replayed.push((message.event.data as { n: number }).n);
          });
        });
        assert.deepEqual(
          replayed,
          Array.from({ length: n }, (_, i) => i),
          "the log holds every event",
        );
      } finally {
        await Promise.all([writer.close(), reader.close()]);
      }
    });
  }
}
