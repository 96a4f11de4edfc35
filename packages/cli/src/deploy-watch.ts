import { setTimeout as sleep } from "node:timers/promises";
import { isSettledStatus } from "@berth-platform/control-plane/revision-status";
import type { ControlPlaneClient, LogEntry, RevisionRecord } from "./control-plane-client.js";

/** Longer than the control plane's log batching interval. */
const LOG_BATCH_GRACE_MS = 250;

/** How watching a revision ended. */
export type WatchOutcome =
  | { kind: "final"; revision: RevisionRecord }
  | { kind: "timeout"; revision: RevisionRecord }
  | { kind: "stopped"; revision: RevisionRecord };

/** What watchRevision needs besides the client. */
export interface WatchOptions {
  deploymentId: string;
  revisionId: string;
  timeoutMs: number;
  pollMs: number;
  /** Prints one line of progress. */
  print(line: string): void;
  /** Aborting stops the watch (Ctrl+C); the revision goes on without us. */
  signal?: AbortSignal;
  /** Epoch ms the elapsed times count from. */
  startedAt: number;
}

/** Log lines asked for per request. */
const PAGE = 200;

/** Reads a revision's log from where it stopped last time, page after page. */
export class LogFollower {
  #cursor: string | undefined;

  constructor(
    private readonly client: ControlPlaneClient,
    private readonly deploymentId: string,
    private readonly revisionId: string,
    private readonly type: "build" | "deploy",
  ) {}

  /** The lines written since the previous call. */
  async next(): Promise<LogEntry[]> {
    const out: LogEntry[] = [];
    for (let page = 0; page < 50; page += 1) {
      const result = await this.client.revisionLogs(this.deploymentId, this.revisionId, {
        type: this.type,
        limit: PAGE,
        offset: this.#cursor,
      });
      out.push(...result.logs);
      // `next_offset` is null when a page was not full; the last line's id is then where the
      // next read starts (a line's id is its cursor).
      this.#cursor = result.next_offset ?? result.logs.at(-1)?.id ?? this.#cursor;
      if (result.logs.length < PAGE) break;
    }
    return out;
  }
}

/** "  12.3s". */
export function elapsed(startedAt: number, now = Date.now()): string {
  return `${((now - startedAt) / 1000).toFixed(1)}s`.padStart(7);
}

/**
 * Polls a revision until it reaches a final status, printing each status change with the time
 * since `startedAt` and the build log lines as they arrive.
 */
export async function watchRevision(
  client: ControlPlaneClient,
  options: WatchOptions,
): Promise<WatchOutcome> {
  const { deploymentId, revisionId, print } = options;
  const build = new LogFollower(client, deploymentId, revisionId, "build");
  const deadline = Date.now() + options.timeoutMs;
  let lastStatus = "";
  for (;;) {
    const revision = await client.getRevision(deploymentId, revisionId);
    const changed = revision.status !== lastStatus;
    const seenAt = Date.now();
    // The control plane writes log lines in batches (every 100 ms): after a status change, give
    // the lines written before it time to arrive so they are printed above the status line.
    if (changed) await sleep(LOG_BATCH_GRACE_MS);
    const lines = await build.next();
    if (changed) {
      // Lines written before the status changed belong above its line, the others below.
      const changedAt = Date.parse(revision.updated_at);
      for (const line of lines.filter((l) => l.timestamp < changedAt)) print(formatLogLine(line));
      lastStatus = revision.status;
      print(`${elapsed(options.startedAt, seenAt)}  ${revision.status}`);
      for (const line of lines.filter((l) => !(l.timestamp < changedAt))) print(formatLogLine(line));
    } else {
      for (const line of lines) print(formatLogLine(line));
    }
    if (isSettledStatus(revision.status)) return { kind: "final", revision };
    if (Date.now() >= deadline) return { kind: "timeout", revision };
    if (options.signal?.aborted) return { kind: "stopped", revision };
    try {
      await sleep(options.pollMs, undefined, { signal: options.signal });
    } catch {
      return { kind: "stopped", revision };
    }
  }
}

/** The last `count` lines of a revision's build or deploy log, oldest first. */
export async function lastLogLines(
  client: ControlPlaneClient,
  deploymentId: string,
  revisionId: string,
  type: "build" | "deploy",
  count: number,
): Promise<LogEntry[]> {
  const page = await client.revisionLogs(deploymentId, revisionId, { type, order: "desc", limit: count });
  return page.logs.reverse();
}

/** A log line as the CLI shows it, indented under the status lines. */
export function formatLogLine(entry: LogEntry): string {
  const level = entry.level === "INFO" ? "" : `${entry.level} `;
  return `         | ${level}${entry.message}`;
}
