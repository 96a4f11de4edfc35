import { BatchedSender, unbatch } from "./ipc-batch.js";
import type { ChildMessage, HubMessage } from "./protocol.js";

/** The channel a cluster child talks to its hub through (the process's IPC channel, or a test double). */
export interface HubChannel {
  send(message: ChildMessage): void;
  onMessage(listener: (message: HubMessage) => void): () => void;
}

/** The IPC channel of a process forked by the primary (`process.send`), one write per event-loop turn. */
export function processHubChannel(proc: NodeJS.Process = process): HubChannel {
  const out = new BatchedSender<ChildMessage>((wire) => {
    // A child whose primary is gone is shutting down (it drains on `disconnect`): nothing to tell.
    if (proc.connected) proc.send?.(wire);
  });
  return {
    send(message) {
      out.send(message);
    },
    onMessage(listener) {
      const handler = (value: unknown) => {
        for (const message of unbatch<HubMessage>(value)) listener(message);
      };
      proc.on("message", handler);
      return () => proc.off("message", handler);
    },
  };
}
