import { type ChildMessage, type HubMessage, isClusterMessage } from "./protocol.js";

/** The channel a cluster child talks to its hub through (the process's IPC channel, or a test double). */
export interface HubChannel {
  send(message: ChildMessage): void;
  onMessage(listener: (message: HubMessage) => void): () => void;
}

/** The IPC channel of a process forked by the primary (`process.send`). */
export function processHubChannel(proc: NodeJS.Process = process): HubChannel {
  return {
    send(message) {
      // A child whose primary is gone is shutting down (it drains on `disconnect`): nothing to tell.
      if (proc.connected) proc.send?.(message);
    },
    onMessage(listener) {
      const handler = (value: unknown) => {
        if (isClusterMessage(value)) listener(value as HubMessage);
      };
      proc.on("message", handler);
      return () => proc.off("message", handler);
    },
  };
}
