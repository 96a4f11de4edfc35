import type {
  Cron,
  CronCount,
  CronCreate,
  CronPatch,
  CronSearch,
  JsonObject,
  ThreadCronCreate,
} from "@berth-platform/schemas";
import { RunCreateStateful } from "@berth-platform/schemas";
import { v7 as uuidv7 } from "uuid";
import { nextOccurrence, validateSchedule } from "../domain/cron-schedule.js";
import { selectFields } from "../domain/select-fields.js";
import { NotFoundError, ValidationError } from "../errors.js";
import type { CronRecord, CronStore } from "../storage/types.js";
import type { AssistantService } from "./assistants.js";

const DEFAULT_TIMEZONE = "UTC";

/** Fields of a create/patch body that describe the runs rather than the schedule. */
const RUN_FIELDS = [
  "input",
  "metadata",
  "config",
  "context",
  "webhook",
  "interrupt_before",
  "interrupt_after",
  "stream_mode",
  "stream_subgraphs",
  "stream_resumable",
  "durability",
  "checkpoint_during",
  "multitask_strategy",
] as const;

function runPayload(body: Record<string, unknown>): JsonObject {
  const payload: JsonObject = {};
  for (const field of RUN_FIELDS) {
    if (body[field] !== undefined && body[field] !== null) payload[field] = body[field];
  }
  return payload;
}

/** Refuses now a payload every execution would refuse (e.g. stream mode "events"). */
function checkPayload(payload: JsonObject, assistantId: string): void {
  const parsed = RunCreateStateful.safeParse({ ...payload, assistant_id: assistantId });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError(
      `Invalid request: body.${issue?.path.join(".") ?? ""}: ${issue?.message ?? ""}`,
    );
  }
}

function endMs(endTime: string | null): number | null {
  return endTime === null ? null : Date.parse(endTime);
}

/** The cron's next occurrence after `nowMs` (null once its end_time has passed). */
function scheduleFrom(cron: CronRecord, nowMs: number): number | null {
  return nextOccurrence(cron.schedule, cron.timezone, nowMs, endMs(cron.end_time));
}

/** The wire form of a cron (`next_run_date` from the stored occurrence). */
export function toCronWire(cron: CronRecord): Cron {
  const { next_run_at, ...rest } = cron;
  return { ...rest, next_run_date: next_run_at === null ? null : new Date(next_run_at).toISOString() };
}

/** Cron use cases; every change wakes the scheduler so its timer follows the earliest occurrence. */
export class CronService {
  constructor(
    private readonly crons: CronStore,
    private readonly assistants: AssistantService,
    private readonly onChange: () => void,
  ) {}

  /** A cron whose runs each get a new thread (deleted after the run unless `on_run_completed: keep`). */
  createStateless(body: CronCreate): Promise<Cron> {
    return this.create(body, null, body.on_run_completed ?? "delete");
  }

  /** A cron whose runs go to one thread (multitask strategy `enqueue` unless the body says otherwise). */
  createForThread(threadId: string, body: ThreadCronCreate): Promise<Cron> {
    return this.create(body, threadId, null);
  }

  private async create(
    body: CronCreate | ThreadCronCreate,
    threadId: string | null,
    onRunCompleted: CronRecord["on_run_completed"],
  ): Promise<Cron> {
    const assistant = await this.assistants.forRun(body.assistant_id);
    const timezone = body.timezone ?? DEFAULT_TIMEZONE;
    validateSchedule(body.schedule, timezone);
    const now = new Date();
    const cron: CronRecord = {
      cron_id: uuidv7(),
      assistant_id: assistant.assistant_id,
      thread_id: threadId,
      user_id: null,
      schedule: body.schedule,
      timezone,
      end_time: body.end_time ? new Date(body.end_time).toISOString() : null,
      payload: runPayload(body),
      metadata: body.metadata ?? {},
      enabled: body.enabled ?? true,
      on_run_completed: onRunCompleted,
      next_run_at: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    checkPayload(cron.payload, cron.assistant_id);
    cron.next_run_at = scheduleFrom(cron, now.getTime());
    const created = await this.crons.create(cron);
    this.onChange();
    return toCronWire(created);
  }

  async get(cronId: string): Promise<Cron> {
    const cron = await this.crons.get(cronId);
    if (!cron) throw new NotFoundError(`Cron ${cronId} not found`);
    return toCronWire(cron);
  }

  /** Applies a patch; a new schedule, timezone, end or re-enabling counts from now. */
  async patch(cronId: string, body: CronPatch): Promise<Cron> {
    const nowMs = Date.now();
    const updated = await this.crons.update(cronId, (cron) => {
      const next: CronRecord = {
        ...cron,
        schedule: body.schedule ?? cron.schedule,
        timezone: body.timezone ?? cron.timezone,
        end_time:
          body.end_time === undefined
            ? cron.end_time
            : body.end_time === null
              ? null
              : new Date(body.end_time).toISOString(),
        enabled: body.enabled ?? cron.enabled,
        on_run_completed:
          cron.thread_id === null ? (body.on_run_completed ?? cron.on_run_completed) : cron.on_run_completed,
        payload: { ...cron.payload, ...runPayload(body) },
        metadata: body.metadata ?? cron.metadata,
        updated_at: new Date(nowMs).toISOString(),
      };
      validateSchedule(next.schedule, next.timezone);
      checkPayload(next.payload, next.assistant_id);
      const rescheduled =
        next.schedule !== cron.schedule ||
        next.timezone !== cron.timezone ||
        next.end_time !== cron.end_time ||
        (next.enabled && !cron.enabled);
      return rescheduled ? { ...next, next_run_at: scheduleFrom(next, nowMs) } : next;
    });
    if (!updated) throw new NotFoundError(`Cron ${cronId} not found`);
    this.onChange();
    return toCronWire(updated);
  }

  async delete(cronId: string): Promise<void> {
    if (!(await this.crons.delete(cronId))) throw new NotFoundError(`Cron ${cronId} not found`);
    this.onChange();
  }

  async search(filter: CronSearch): Promise<Array<Partial<Cron>>> {
    const found = await this.crons.search({
      ...filter,
      assistant_id: await this.assistantFilter(filter.assistant_id),
      sortBy: filter.sort_by ?? "created_at",
      sortOrder: filter.sort_order ?? "desc",
    });
    return selectFields(found.map(toCronWire), filter.select);
  }

  async count(filter: CronCount): Promise<number> {
    return this.crons.count({ ...filter, assistant_id: await this.assistantFilter(filter.assistant_id) });
  }

  /** A graph id filter means its system assistant; an unknown id simply matches nothing. */
  private async assistantFilter(idOrGraph: string | null | undefined): Promise<string | null> {
    if (!idOrGraph) return null;
    try {
      return (await this.assistants.get(idOrGraph)).assistant_id;
    } catch (error) {
      if (error instanceof NotFoundError) return idOrGraph;
      throw error;
    }
  }
}
