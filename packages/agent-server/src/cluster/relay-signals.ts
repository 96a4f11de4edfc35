import { MemoryRunSignals } from "../queue/signals-memory.js";
import { type RunOutcome, type RunSignals, withoutStoredValues } from "../queue/types.js";
import type { HubChannel } from "./hub-link.js";

/**
 * Signals of a child of the embedded cluster: delivered in this process at once and echoed through
 * the primary to the other children. The doorbell goes elsewhere only when this process cannot take
 * the run itself (its queue is full): a run is executed by the child that accepted it when it can,
 * which saves a hop and a claim race on the shared file; the others' safety poll covers the rest.
 */
export class RelayRunSignals implements RunSignals {
  private readonly local = new MemoryRunSignals();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly hub: HubChannel,
    private readonly hasLocalCapacity: () => boolean,
  ) {
    this.unsubscribe = hub.onMessage((message) => {
      if (message.t === "door") this.local.ringDoorbell();
      else if (message.t === "cancel") this.local.cancel(message.run);
      else if (message.t === "ended") this.local.runEnded(message.run, message.outcome);
    });
  }

  ringDoorbell(): void {
    this.local.ringDoorbell();
    if (!this.hasLocalCapacity()) this.hub.send({ t: "door" });
  }

  onDoorbell(listener: () => void): () => void {
    return this.local.onDoorbell(listener);
  }

  cancel(runId: string): void {
    this.local.cancel(runId);
    this.hub.send({ t: "cancel", run: runId });
  }

  onCancel(runId: string, listener: () => void): () => void {
    return this.local.onCancel(runId, listener);
  }

  runEnded(runId: string, outcome: RunOutcome): void {
    this.local.runEnded(runId, outcome);
    // Every child hears it: a waiter elsewhere registers before it reads the run, so a broadcast
    // after the commit cannot be missed (asking who waits would race with that registration).
    this.hub.send({ t: "ended", run: runId, outcome: withoutStoredValues(outcome) });
  }

  onRunEnded(runId: string, listener: (outcome: RunOutcome) => void): () => void {
    return this.local.onRunEnded(runId, listener);
  }

  close(): void {
    this.unsubscribe();
  }
}
