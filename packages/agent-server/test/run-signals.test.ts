// Signals within a process: a cancel that arrives before the run's worker listens (a displacement
// committed right after the claim) still reaches the worker when it subscribes, for a few seconds.
import assert from "node:assert/strict";
import { describe, it, mock } from "node:test";
import { MemoryRunSignals } from "../src/queue/signals-memory.js";
import { withoutStoredValues } from "../src/queue/types.js";

describe("run signals in one process", () => {
  it("a cancel nobody heard is delivered to the run's next subscriber, once", () => {
    const signals = new MemoryRunSignals();
    signals.cancel("r1");
    let heard = 0;
    const unsubscribe = signals.onCancel("r1", () => heard++);
    assert.equal(heard, 1, "delivered on subscription");
    unsubscribe();
    signals.onCancel("r1", () => heard++)();
    assert.equal(heard, 1, "not twice");
    signals.onCancel("r2", () => heard++)();
    assert.equal(heard, 1, "only to its own run");
  });

  it("a cancel heard by a listener is not kept for a later one", () => {
    const signals = new MemoryRunSignals();
    let first = 0;
    let later = 0;
    const unsubscribe = signals.onCancel("r1", () => first++);
    signals.cancel("r1");
    unsubscribe();
    signals.onCancel("r1", () => later++)();
    assert.deepEqual([first, later], [1, 0]);
    assert.equal(signals.pendingListeners, 0);
  });

  it("an unheard cancel expires after 10 s", () => {
    mock.timers.enable({ apis: ["Date"], now: 1_000_000 });
    try {
      const signals = new MemoryRunSignals();
      signals.cancel("old");
      mock.timers.tick(10_001);
      let heard = 0;
      signals.onCancel("old", () => heard++)();
      assert.equal(heard, 0);
    } finally {
      mock.timers.reset();
    }
  });

  it("keeps at most 1,000 unheard cancels, dropping the oldest", () => {
    const signals = new MemoryRunSignals();
    for (let i = 0; i < 1_001; i++) signals.cancel(`r${i}`);
    let heard = 0;
    signals.onCancel("r0", () => heard++)();
    assert.equal(heard, 0, "the oldest was dropped");
    signals.onCancel("r1000", () => heard++)();
    signals.onCancel("r1", () => heard++)();
    assert.equal(heard, 2);
  });
});

describe("a run's end as other processes hear it", () => {
  it("leaves out values the thread holds, keeps a temporary thread's", () => {
    const kept = { status: "success" as const, valuesJson: `{"messages":[1,2]}`, threadHoldsValues: true };
    assert.deepEqual(withoutStoredValues(kept), { status: "success", threadHoldsValues: true });
    const temporary = { status: "success" as const, valuesJson: `{"messages":[1]}` };
    assert.deepEqual(withoutStoredValues(temporary), temporary);
  });
});
