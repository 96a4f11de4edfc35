// The Redis stream broker's lazily published events (a non-resumable run's stream chunks): built
// only once someone listens, then delivered with the events published eagerly, all in order.
// Needs REDIS_URL (skips without).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { testBroker } from "./redis-broker.js";

const url = process.env.REDIS_URL || undefined;

function broker(prefix: string, name: string) {
  if (!url) throw new Error("REDIS_URL is not set");
  return testBroker(url, { prefix, name, maxEvents: 1_000 });
}

describe("Redis stream broker, events published lazily", {
  skip: url === undefined ? "REDIS_URL is not set" : false,
}, () => {
  it("builds a quiet run's events only when a listener comes, and that listener gets every event in order", async () => {
    const prefix = `lazy-test-${randomBytes(4).toString("hex")}:`;
    // The process executing the run, and an API process a client streams it from.
    const worker = broker(prefix, "worker");
    const api = broker(prefix, "api");
    try {
      const runId = `run-${randomBytes(4).toString("hex")}`;
      worker.instance.open(runId, { resumable: false, executing: true });
      const produced: number[] = [];
      const chunk = (step: number) => () => {
        produced.push(step);
        return [
          { event: "values", data: { step } },
          { event: "updates", data: { step } },
        ];
      };
      worker.instance.publishLazily(runId, chunk(0));
      worker.instance.publish(runId, "custom", { between: true });
      worker.instance.publishLazily(runId, chunk(1));
      worker.instance.publishLazily(runId, chunk(2));
      worker.instance.end(runId);
      // Whether anyone listens is asked of Redis meanwhile: nobody does, so nothing is built.
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(produced, []);

      const received: Array<{ event: string; data: unknown }> = [];
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("the stream did not end")), 15_000);
        api.instance.subscribe(runId, { lastEventId: "-1" }, (message) => {
          if (message.kind === "end") {
            clearTimeout(timer);
            resolve();
          } else received.push({ event: message.event.event, data: message.event.data });
        });
      });
      assert.deepEqual(produced, [0, 1, 2]);
      assert.deepEqual(received, [
        { event: "values", data: { step: 0 } },
        { event: "updates", data: { step: 0 } },
        { event: "custom", data: { between: true } },
        { event: "values", data: { step: 1 } },
        { event: "updates", data: { step: 1 } },
        { event: "values", data: { step: 2 } },
        { event: "updates", data: { step: 2 } },
      ]);
    } finally {
      await Promise.all([worker.close(), api.close()]);
    }
  });
});
