import { ApiError } from "@berth-platform/server-kit";

/**
 * The tracing package's errors: ApiError subclasses, so the host's one error mapping (the control
 * plane's, or the standalone server's) renders them as `{detail}` with their status.
 */
export class TracingError extends ApiError {}

export class BadRequestError extends TracingError {
  constructor(message: string) {
    super(message, 400);
  }
}

export class UnauthorizedError extends TracingError {
  constructor(message = "Missing or invalid API key.") {
    super(message, 401);
  }
}

export class ForbiddenError extends TracingError {
  constructor(message: string) {
    super(message, 403);
  }
}

/** Not found, or another workspace's: the same answer. */
export class NotFoundError extends TracingError {
  constructor(message: string) {
    super(message, 404);
  }
}

export class ConflictError extends TracingError {
  constructor(message: string) {
    super(message, 409);
  }
}

export class PayloadTooLargeError extends TracingError {
  constructor(message: string) {
    super(message, 413);
  }
}

export class ServiceUnavailableError extends TracingError {
  constructor(message: string, retryAfterSeconds?: number) {
    super(message, 503, retryAfterSeconds);
  }
}
