/** One event of a run's stream: an SSE `event` name and its JSON payload. */
export interface RunStreamEvent {
  event: string;
  data: unknown;
}

/**
 * Carries a run's events from the worker executing it to the clients streaming it. In-process for
 * the embedded server; Redis pub/sub when API and workers are separate processes.
 */
export interface StreamBroker {
  /** Whether anybody listens to the run: lets the worker skip serialising unwanted events. */
  hasSubscribers(runId: string): boolean;
  publish(runId: string, event: RunStreamEvent): void;
  subscribe(runId: string, listener: (event: RunStreamEvent) => void): () => void;
}
