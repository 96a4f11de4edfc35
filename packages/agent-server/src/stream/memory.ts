import type { RunStreamEvent, StreamBroker } from "./types.js";

/** Stream events within one process; nothing is buffered when nobody listens. */
export class MemoryStreamBroker implements StreamBroker {
  private readonly listeners = new Map<string, Set<(event: RunStreamEvent) => void>>();

  hasSubscribers(runId: string): boolean {
    return this.listeners.has(runId);
  }

  publish(runId: string, event: RunStreamEvent): void {
    const set = this.listeners.get(runId);
    if (!set) return;
    for (const listener of [...set]) listener(event);
  }

  subscribe(runId: string, listener: (event: RunStreamEvent) => void): () => void {
    let set = this.listeners.get(runId);
    if (!set) {
      set = new Set();
      this.listeners.set(runId, set);
    }
    set.add(listener);
    return () => {
      const current = this.listeners.get(runId);
      current?.delete(listener);
      if (current?.size === 0) this.listeners.delete(runId);
    };
  }
}
