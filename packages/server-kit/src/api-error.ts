/**
 * Base of the errors Berth's services throw for the client to see: each server's one error
 * mapping renders any of them as `{detail}` with `status` (and Retry-After when given). Packages
 * mounted into a server (tracing) throw their own subclasses; the host maps them with its own.
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** For a 503: how long the client should wait before sending again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
