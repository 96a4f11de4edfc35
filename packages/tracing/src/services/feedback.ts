import { randomUUID } from "node:crypto";
import type { Feedback } from "../domain/sdk-types.js";
import { isUuid } from "../domain/tracing.js";
import { BadRequestError, NotFoundError } from "../errors.js";
import type { FeedbackStore } from "../storage/sdk-types.js";

/** What a client sends to create feedback (`POST /feedback`, or a multipart `feedback.<id>` part). */
export interface FeedbackInput {
  id?: unknown;
  run_id?: unknown;
  trace_id?: unknown;
  session_id?: unknown;
  key?: unknown;
  score?: unknown;
  value?: unknown;
  comment?: unknown;
  correction?: unknown;
  feedback_source?: unknown;
}

function uuidOrNull(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (!isUuid(value)) throw new BadRequestError(`${field} must be a UUID.`);
  return value.toLowerCase();
}

/** Booleans are stored as 1/0, as LangSmith does; anything else but a finite number is refused. */
function scoreOf(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number" && Number.isFinite(value)) return value;
  throw new BadRequestError("score must be a number or a boolean.");
}

function textOrNull(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || value.length > 10_000) throw new BadRequestError(`${field} must be text.`);
  return value;
}

/** Feedback on runs (scores, values, comments, corrections) and on projects (experiment summaries). */
export class FeedbackService {
  constructor(private readonly store: FeedbackStore) {}

  async create(tenantId: string, input: FeedbackInput): Promise<Feedback> {
    if (typeof input !== "object" || input === null) throw new BadRequestError("Feedback must be an object.");
    const runId = uuidOrNull(input.run_id, "run_id");
    const sessionId = uuidOrNull(input.session_id, "session_id");
    if (!runId && !sessionId) throw new BadRequestError("Feedback needs a run_id or a session_id.");
    if (typeof input.key !== "string" || input.key === "" || input.key.length > 200) {
      throw new BadRequestError("Feedback needs a key (1-200 characters).");
    }
    const now = new Date().toISOString();
    const feedback: Feedback = {
      id: uuidOrNull(input.id, "id") ?? randomUUID(),
      tenant_id: tenantId,
      run_id: runId,
      trace_id: uuidOrNull(input.trace_id, "trace_id"),
      session_id: sessionId,
      key: input.key,
      score: scoreOf(input.score),
      value: input.value ?? null,
      comment: textOrNull(input.comment, "comment"),
      correction: input.correction ?? null,
      feedback_source: input.feedback_source ?? null,
      created_at: now,
      modified_at: now,
    };
    await this.store.put(feedback);
    return feedback;
  }

  async get(tenantId: string, id: string): Promise<Feedback> {
    const feedback = await this.store.get(tenantId, id);
    if (!feedback) throw new NotFoundError(`Feedback ${id} not found.`);
    return feedback;
  }

  list(
    tenantId: string,
    filter: { runIds?: string[]; keys?: string[]; sessionIds?: string[]; limit: number; offset: number },
  ): Promise<Feedback[]> {
    return this.store.list(tenantId, filter);
  }

  /** Changes the fields sent (undefined: kept; null: cleared). */
  async update(tenantId: string, id: string, changes: FeedbackInput): Promise<Feedback> {
    const feedback = await this.get(tenantId, id);
    const next: Feedback = {
      ...feedback,
      ...(changes.score !== undefined ? { score: scoreOf(changes.score) } : {}),
      ...(changes.value !== undefined ? { value: changes.value } : {}),
      ...(changes.correction !== undefined ? { correction: changes.correction } : {}),
      ...(changes.comment !== undefined ? { comment: textOrNull(changes.comment, "comment") } : {}),
      modified_at: new Date().toISOString(),
    };
    await this.store.put(next);
    return next;
  }

  async remove(tenantId: string, id: string): Promise<void> {
    if (!(await this.store.remove(tenantId, id))) throw new NotFoundError(`Feedback ${id} not found.`);
  }
}
