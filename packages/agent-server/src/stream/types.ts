/** One event of a run's stream: an SSE `event` name, its JSON payload and its per-run id. */
export interface RunStreamEvent {
  id: string;
  event: string;
  data: unknown;
}

/** What a subscriber receives: events, then one `end` once the run's stream is over. */
export type StreamMessage = { kind: "event"; event: RunStreamEvent } | { kind: "end" };

/**
 * Carries a run's events from the worker executing it to the clients streaming it. In-process for
 * the embedded server; Redis pub/sub when API and workers are separate processes.
 */
export interface StreamBroker {
  /**
   * Declares a run before it starts; a resumable run's events are kept for replay until `ttlMs`
   * after it ends. `executing`: said by the worker about to execute it (the API says it on
   * acceptance), so a broker spanning processes learns where the run's events come from.
   */
  open(runId: string, options: { resumable: boolean; executing?: boolean }): void;
  /** Whether publishing is worth it: someone listens or the run is resumable. */
  wanted(runId: string): boolean;
  /**
   * Appends an event. Ids increase per run and across the run's attempts and processes (they start
   * from the time the stream is first used), so a Last-Event-ID from before a restart still works.
   */
  publish(runId: string, event: string, data: unknown): void;
  /**
   * `publish` of the events `produce` returns, called in order with the other publications of the
   * run, now or only if someone comes to listen (a broker that holds a run's events for a listener
   * on its way: their wire form is not built for nobody). Without it: `wanted`, then `publish`.
   */
  publishLazily?(runId: string, produce: () => Array<{ event: string; data: unknown }>): void;
  /**
   * With a durable log (one process on SQLite): the id of the last event kept for the run, which
   * the checkpointer stamps on each checkpoint, so a run resumed from one knows which of its
   * events came after it (issue 27 item 8). Undefined without a log.
   */
  lastLoggedId?(runId: string): number | undefined;
  /** With a durable log: the run's kept events after `afterId`, in order. */
  loggedAfter?(runId: string, afterId: number): RunStreamEvent[];
  /** The run's stream is over: subscribers get `end`, live buffers are freed. */
  end(runId: string): void;
  /**
   * Listens to a run. With `lastEventId` ("-1" for all), a resumable run's kept events after that
   * id are replayed first; a run whose stream already ended gets `end` at once.
   */
  subscribe(
    runId: string,
    options: {
      lastEventId?: string | undefined;
      /**
       * Called once the replay is delivered (at once in-process, after a round trip to Redis).
       * `logged`: the broker holds this run's stream, so its `end` will come; otherwise the caller
       * should ask the database whether the run is already over.
       */
      onReplayed?: ((info: { logged: boolean }) => void) | undefined;
    },
    listener: (message: StreamMessage) => void,
  ): () => void;
}
