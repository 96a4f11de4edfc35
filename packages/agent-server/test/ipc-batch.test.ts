import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import { BatchedSender, unbatch, type Wire } from "../src/cluster/ipc-batch.js";
import type { ChildMessage } from "../src/cluster/protocol.js";

function recorder() {
  const writes: Wire<ChildMessage>[] = [];
  return { writes, sender: new BatchedSender<ChildMessage>((wire) => writes.push(wire)) };
}

describe("cluster IPC batching", () => {
  it("writes what one event-loop turn sent as one batch, in order, on the next turn", async () => {
    const { writes, sender } = recorder();
    sender.send({ t: "exec", run: "a" });
    sender.send({ t: "ended", run: "b", outcome: { status: "success" } });
    sender.send({ t: "exec", run: "c" });
    assert.equal(writes.length, 0, "nothing is written in the turn that sends");
    await nextTurn();
    assert.deepEqual(writes, [
      {
        t: "batch",
        m: [
          { t: "exec", run: "a" },
          { t: "ended", run: "b", outcome: { status: "success" } },
          { t: "exec", run: "c" },
        ],
      },
    ]);
    sender.send({ t: "cancel", run: "d" });
    await nextTurn();
    assert.deepEqual(writes[1], { t: "cancel", run: "d" }, "a lone message goes bare, in a write of its own");
    await nextTurn();
    assert.equal(writes.length, 2, "an empty turn writes nothing");
  });

  it("a doorbell rung several times in one turn is written once", async () => {
    const { writes, sender } = recorder();
    sender.send({ t: "door" });
    sender.send({ t: "exec", run: "a" });
    sender.send({ t: "door" });
    await nextTurn();
    assert.deepEqual(writes, [{ t: "batch", m: [{ t: "door" }, { t: "exec", run: "a" }] }]);
  });

  it("flush writes at once what is queued", () => {
    const { writes, sender } = recorder();
    sender.send({ t: "exec", run: "a" });
    sender.flush();
    assert.deepEqual(writes, [{ t: "exec", run: "a" }]);
  });

  it("unbatch: a batch in order, a bare message, and nothing from other IPC users", () => {
    assert.deepEqual(unbatch({ t: "batch", m: [{ t: "door" }, { t: "exec", run: "a" }, 7] }), [
      { t: "door" },
      { t: "exec", run: "a" },
    ]);
    assert.deepEqual(unbatch({ t: "door" }), [{ t: "door" }]);
    assert.deepEqual(unbatch({ cmd: "NODE_CLUSTER" }), []);
    assert.deepEqual(unbatch(null), []);
  });
});
