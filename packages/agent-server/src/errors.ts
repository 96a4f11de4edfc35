/** Base class of the errors the core throws; `app.ts` renders them as `{detail}` with the status. */
export class DomainError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A thread, run or assistant that does not exist (or is not visible): 404. */
export class NotFoundError extends DomainError {
  constructor(message: string) {
    super(message, 404);
  }
}

/** A request the server cannot act on as it stands (the official server's 400s): 400. */
export class BadRequestError extends DomainError {
  constructor(message: string) {
    super(message, 400);
  }
}

/** A request that conflicts with current state (busy thread under `reject`, duplicate id): 409. */
export class ConflictError extends DomainError {
  constructor(message: string) {
    super(message, 409);
  }
}

/** A request that is well-formed but cannot be carried out as asked: 422. */
export class ValidationError extends DomainError {
  constructor(message: string) {
    super(message, 422);
  }
}

/** The server is shutting down or otherwise cannot take work right now: 503. */
export class UnavailableError extends DomainError {
  constructor(message: string) {
    super(message, 503);
  }
}
