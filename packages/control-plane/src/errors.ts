// The subpath, not the package's index: `berth --version` loads this module through
// revision-status, and the index would load SQLite, Kysely and Fastify with it.
import { ApiError } from "@berth-platform/server-kit/api-error";

/**
 * Base class of the errors the core throws; http/errors.ts renders them (and the tracing
 * package's, which share the ApiError base) as `{detail}` with the status.
 */
export class DomainError extends ApiError {}

/** A well-formed request that breaks a business rule: 400. */
export class BadRequestError extends DomainError {
  constructor(message: string) {
    super(message, 400);
  }
}

/** One refused field: where (FastAPI's `loc`), why, and pydantic's name for the kind of error. */
export interface FieldIssue {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

/** Input the schema alone cannot judge (Kubernetes rules, a claim that cannot shrink): 422 with the paths. */
export class UnprocessableError extends DomainError {
  constructor(readonly issues: FieldIssue[]) {
    super(issues.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; "), 422);
  }
}

/** No valid credential: 401. */
export class UnauthorizedError extends DomainError {
  constructor(message = "Missing or invalid API key.") {
    super(message, 401);
  }
}

/** A valid credential that may not act as asked (tenant selection): 403. */
export class ForbiddenError extends DomainError {
  constructor(message: string) {
    super(message, 403);
  }
}

/** A resource that does not exist or belongs to another tenant: 404. */
export class NotFoundError extends DomainError {
  constructor(message: string) {
    super(message, 404);
  }
}

/** A request that conflicts with existing state (duplicate name, deployment being deleted): 409. */
export class ConflictError extends DomainError {
  constructor(message: string) {
    super(message, 409);
  }
}

/** A body over the accepted size (a source archive): 413. */
export class PayloadTooLargeError extends DomainError {
  constructor(message: string) {
    super(message, 413);
  }
}

/**
 * Something the request needs is not running right now (a deployment's agent server): 503, with
 * `Retry-After` when a retry soon is likely to work.
 */
export class ServiceUnavailableError extends DomainError {
  constructor(message: string, retryAfterSeconds?: number) {
    super(message, 503, retryAfterSeconds);
  }
}
