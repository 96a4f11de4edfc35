import type { ValidationIssue } from "./types.js";

/** An API answer that was not 2xx: the status, the readable message and any per-field issues. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly issues: ValidationIssue[] = [],
  ) {
    super(message);
  }

  /** The messages of issues about one body field (its path after `body`, dotted), for forms. */
  fieldMessages(field: string): string[] {
    if (this.issues.length > 0) {
      return this.issues.filter((i) => fieldPath(i.loc) === field).map((i) => i.msg);
    }
    // A 400 names its field in words ("name must start…", "source_config.repo_url does not…").
    return this.status === 400 && this.namesField(field) ? [this.message] : [];
  }

  /** Whether a plain-text error starts with the field's path or its last segment. */
  namesField(field: string): boolean {
    const last = field.split(".").pop() ?? field;
    return [field, last].some((f) => this.message.startsWith(`${f} `) || this.message.startsWith(`${f}:`));
  }

  /** Issues no form field claims (shown above the form). */
  unclaimed(fields: string[]): ValidationIssue[] {
    return this.issues.filter((i) => !fields.includes(fieldPath(i.loc)));
  }
}

/** `["body","source_config","repo_url"]` → `source_config.repo_url`. */
export function fieldPath(loc: Array<string | number>): string {
  return (loc[0] === "body" ? loc.slice(1) : loc).join(".");
}

/** Turns an error response body into an ApiError (`{detail: string}` or `{detail: [{loc,msg}]}`). */
export function errorFromBody(status: number, body: unknown): ApiError {
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  if (Array.isArray(detail)) {
    const issues = detail as ValidationIssue[];
    const summary = issues.map((i) => `${fieldPath(i.loc)}: ${i.msg}`).join("; ");
    return new ApiError(status, summary || `Request failed (${status})`, issues);
  }
  if (typeof detail === "string") return new ApiError(status, detail);
  return new ApiError(status, `Request failed (${status})`);
}

/** A readable message for any thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
