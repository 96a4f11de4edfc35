import { NotFoundError } from "../errors.js";
import type { ControlPlaneStorage, LogLine } from "../storage/types.js";

/** A log request in the API's terms (v1 and v2 differ only in names). */
export interface LogRequest {
  deploymentId: string;
  revisionId?: string | undefined;
  type: "build" | "deploy";
  order: "asc" | "desc";
  limit: number;
  cursor?: string | undefined;
  level?: string | undefined;
  query?: string | undefined;
  startTime?: number | undefined;
  endTime?: number | undefined;
}

/**
 * A page of log entries and the cursor to continue from: the last entry's, so a client polling a
 * live log (`langgraphjs deploy --verbose`) gets only new lines next time; the request's own cursor
 * when nothing new came; null when there is nothing at all.
 */
export interface LogPage {
  entries: Array<{ id: string; timestamp: number; level: string; message: string }>;
  next: string | null;
  /** Whether the page was full (more entries may follow right away). */
  full: boolean;
}

/** Revision logs, scoped to the caller's tenant (a foreign deployment or revision is a 404). */
export class LogService {
  constructor(private readonly storage: ControlPlaneStorage) {}

  async page(tenantId: string, request: LogRequest): Promise<LogPage> {
    if (!(await this.storage.deployments.get(tenantId, request.deploymentId))) {
      throw new NotFoundError(`Deployment ID ${request.deploymentId} not found.`);
    }
    if (request.revisionId) {
      const revision = await this.storage.revisions.get(tenantId, request.deploymentId, request.revisionId);
      if (!revision) throw new NotFoundError(`Revision ID ${request.revisionId} not found.`);
    }
    const lines: LogLine[] = await this.storage.logs.query({
      tenantId,
      deploymentId: request.deploymentId,
      revisionId: request.revisionId,
      type: request.type,
      order: request.order,
      limit: request.limit,
      afterSeq: request.cursor === undefined ? undefined : Number(request.cursor),
      level: request.level,
      query: request.query,
      startTime: request.startTime,
      endTime: request.endTime,
    });
    const last = lines.at(-1);
    return {
      entries: lines.map((l) => ({
        id: String(l.seq),
        timestamp: l.timestamp,
        level: l.level,
        message: l.message,
      })),
      next: last ? String(last.seq) : (request.cursor ?? null),
      full: lines.length === request.limit,
    };
  }
}
