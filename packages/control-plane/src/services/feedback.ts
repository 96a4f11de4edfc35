import { randomUUID } from "node:crypto";
import type { Feedback } from "../domain/feedback.js";
import type { ControlPlaneStorage } from "../storage/types.js";
import type { TracingService } from "./tracing.js";

/** What a caller sends to create feedback (LangSmith's `POST /feedback` body, the fields kept). */
export interface FeedbackInput {
  id?: string | undefined;
  run_id: string;
  key: string;
  score?: number | null | undefined;
  value?: unknown;
  comment?: string | null | undefined;
  correction?: unknown;
  feedback_source?: unknown;
}

/** Feedback on runs: kept per workspace, only on runs the workspace has. */
export class FeedbackService {
  constructor(
    private readonly storage: ControlPlaneStorage,
    private readonly tracing: TracingService,
  ) {}

  /** Creates feedback on a run of the tenant (404 for a run it does not have). */
  async create(tenantId: string, input: FeedbackInput, now = new Date()): Promise<Feedback> {
    const run = await this.tracing.run(tenantId, input.run_id);
    const feedback: Feedback = {
      id: input.id ?? randomUUID(),
      tenant_id: tenantId,
      run_id: run.id,
      trace_id: run.trace_id,
      key: input.key,
      score: input.score ?? null,
      value: input.value ?? null,
      comment: input.comment ?? null,
      correction: input.correction ?? null,
      feedback_source: input.feedback_source ?? null,
      created_at: now.toISOString(),
    };
    await this.storage.feedback.create(feedback);
    return feedback;
  }

  /** The tenant's feedback, newest first. */
  list(
    tenantId: string,
    filter: { runIds?: string[] | undefined; keys?: string[] | undefined; limit: number; offset: number },
  ): Promise<Feedback[]> {
    return this.storage.feedback.list(tenantId, filter);
  }
}
