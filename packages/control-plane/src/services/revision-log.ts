import type { Logger } from "pino";
import type { RevisionLog } from "../runtime/types.js";
import type { LogLine, LogStore } from "../storage/types.js";

/** Lines are written in batches: every 100 ms, or at once when this many are waiting. */
const BATCH_LINES = 200;
const FLUSH_MS = 100;

/**
 * Collects a revision's log lines and writes them to the log store in order, in batches (a build
 * prints thousands of lines; one insert each would slow it down).
 */
export class RevisionLogWriter {
  #pending: Omit<LogLine, "seq">[] = [];
  #timer: NodeJS.Timeout | null = null;
  #writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly logs: LogStore,
    private readonly ids: { tenant_id: string; deployment_id: string; revision_id: string },
    private readonly logger: Logger,
  ) {}

  /** The RevisionLog the runtime writes to. */
  readonly log: RevisionLog = (type, level, message) => {
    this.#pending.push({ ...this.ids, type, level, message, timestamp: Date.now() });
    if (this.#pending.length >= BATCH_LINES) void this.flush();
    else this.#timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  };

  /** Writes what is waiting; resolves once everything logged so far is stored. */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const batch = this.#pending;
    this.#pending = [];
    if (batch.length > 0) {
      this.#writing = this.#writing
        .then(() => this.logs.append(batch))
        .catch((error: unknown) => this.logger.error({ err: error }, "could not store revision log lines"));
    }
    return this.#writing;
  }
}
