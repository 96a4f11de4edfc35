import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ClusterHub } from "../src/cluster/hub.js";
import type { HubChannel } from "../src/cluster/hub-link.js";
import type { ChildMessage, HubMessage } from "../src/cluster/protocol.js";
import { RelayStreamBroker } from "../src/cluster/relay-broker.js";
import { RelayRunSignals } from "../src/cluster/relay-signals.js";
import type { StreamMessage } from "../src/stream/types.js";

/**
 * A hub and children wired through in-order queues that deliver only when `flush` runs, so a test
 * decides exactly which messages are in flight when something happens.
 */
function wire(children: number) {
  const hub = new ClusterHub({ ttlMs: 60_000, runTtlMs: 60_000, maxEvents: 100 });
  const queue: Array<() => void> = [];
  const channels = Array.from({ length: children }, (_, child): HubChannel => {
    const listeners = new Set<(message: HubMessage) => void>();
    hub.attach(child, (message) =>
      queue.push(() => {
        for (const listener of listeners) listener(message);
      }),
    );
    return {
      send: (message: ChildMessage) => queue.push(() => hub.handle(child, message)),
      onMessage(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
  });
  const flush = () => {
    while (queue.length) queue.shift()?.();
  };
  return { hub, channels, flush };
}

const summary = (messages: StreamMessage[]) =>
  messages.map((m) => (m.kind === "end" ? "end" : `${m.event.event}:${JSON.stringify(m.event.data)}`));

describe("embedded cluster relay (hub + child brokers)", () => {
  it("a subscriber whose subscription is in flight when another child starts the run gets every event", () => {
    const { channels, flush } = wire(2);
    const [a, b] = channels.map((c) => new RelayStreamBroker(c, { ttlMs: 60_000, maxEvents: 100 })) as [
      RelayStreamBroker,
      RelayStreamBroker,
    ];
    const got: StreamMessage[] = [];
    b.subscribe("r", {}, (m) => got.push(m));
    a.open("r", { resumable: false, executing: true });
    assert.equal(a.wanted("r"), true, "events are kept until the hub answers");
    a.publish("r", "values", 1);
    a.publish("r", "values", 2);
    a.end("r");
    flush();
    assert.deepEqual(summary(got), ["values:1", "values:2", "end"]);
  });

  it("nobody elsewhere listens: nothing crosses; a later subscriber gets events from its subscription on", () => {
    const { channels, flush } = wire(2);
    const [a, b] = channels.map((c) => new RelayStreamBroker(c, { ttlMs: 60_000, maxEvents: 100 })) as [
      RelayStreamBroker,
      RelayStreamBroker,
    ];
    a.open("r", { resumable: false, executing: true });
    flush();
    assert.equal(a.wanted("r"), false, "not worth publishing");
    a.publish("r", "values", 1);
    const got: StreamMessage[] = [];
    b.subscribe("r", {}, (m) => got.push(m));
    flush();
    a.publish("r", "values", 2);
    a.end("r");
    flush();
    assert.deepEqual(summary(got), ["values:2", "end"]);
  });

  it("a resumable run's events are replayed after Last-Event-ID on any child, with the hub's ids", () => {
    const { channels, flush } = wire(3);
    const [a, b, c] = channels.map((ch) => new RelayStreamBroker(ch, { ttlMs: 60_000, maxEvents: 100 })) as [
      RelayStreamBroker,
      RelayStreamBroker,
      RelayStreamBroker,
    ];
    b.open("r", { resumable: true });
    b.publish("r", "metadata", 0);
    a.open("r", { resumable: true, executing: true });
    for (let i = 1; i <= 4; i++) a.publish("r", "values", i);
    flush();
    const first: StreamMessage[] = [];
    const stop = c.subscribe("r", { lastEventId: "-1" }, (m) => first.push(m));
    flush();
    stop();
    const ids = first.map((m) => (m.kind === "event" ? m.event.id : "end"));
    assert.deepEqual(summary(first), ["metadata:0", "values:1", "values:2", "values:3", "values:4"]);
    const rest: StreamMessage[] = [];
    let logged: boolean | undefined;
    b.subscribe("r", { lastEventId: ids[2], onReplayed: (info) => (logged = info.logged) }, (m) =>
      rest.push(m),
    );
    flush();
    a.publish("r", "values", 5);
    a.end("r");
    flush();
    assert.equal(logged, true);
    assert.deepEqual(summary(rest), ["values:3", "values:4", "values:5", "end"]);
  });

  it("signals: cancel and run-ended reach every other child; the doorbell only when the ringer is full", () => {
    const { channels, flush } = wire(2);
    let full = false;
    const [a, b] = channels.map((c) => new RelayRunSignals(c, () => !full)) as [
      RelayRunSignals,
      RelayRunSignals,
    ];
    const heard: string[] = [];
    b.onDoorbell(() => heard.push("door"));
    b.onCancel("r", () => heard.push("cancel"));
    b.onRunEnded("r", (o) => heard.push(`ended:${o.status}`));
    a.ringDoorbell();
    flush();
    full = true;
    a.ringDoorbell();
    a.cancel("r");
    a.runEnded("r", { status: "success" });
    flush();
    assert.deepEqual(heard, ["door", "cancel", "ended:success"]);
  });
});
