/**
 * A run's create was built from rows that changed since they were read (`CreateRunRequest.expected`):
 * nothing was written; the caller reads them again and retries. Never reaches a client.
 */
export class StaleReadsError extends Error {
  constructor() {
    super("the assistant or the thread's config changed since they were read");
    this.name = "StaleReadsError";
  }
}
