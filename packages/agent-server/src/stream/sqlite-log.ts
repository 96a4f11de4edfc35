import { openSqliteFile } from "@berth-platform/server-kit";
import type Database from "better-sqlite3";
import type { RunStreamEvent } from "./types.js";

/**
 * The durable log of resumable runs' events for a single process on SQLite (issue 27 item 8): an
 * event is written (synchronously, WAL) before any client sees it, with the id it is sent with, so
 * a Last-Event-ID from before a crash finds the same events under the same ids after a restart,
 * and the resumed attempt's ids continue after the last one written.
 */
export class SqliteRunEventLog {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement;
  private readonly selectAfter: Database.Statement;
  private readonly selectLast: Database.Statement;
  private readonly markEnded: Database.Statement;
  private readonly prune: Database.Transaction<(before: number) => void>;

  constructor(file: string) {
    this.db = openSqliteFile(file);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS run_events (
        run_id TEXT NOT NULL, id INTEGER NOT NULL, event TEXT NOT NULL, data TEXT NOT NULL,
        PRIMARY KEY (run_id, id)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS run_event_ends (run_id TEXT PRIMARY KEY, ended_at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS run_event_ends_at ON run_event_ends (ended_at);
    `);
    this.insert = this.db.prepare(
      "INSERT OR REPLACE INTO run_events (run_id, id, event, data) VALUES (?, ?, ?, ?)",
    );
    this.selectAfter = this.db.prepare(
      "SELECT id, event, data FROM run_events WHERE run_id = ? AND id > ? ORDER BY id",
    );
    this.selectLast = this.db.prepare("SELECT MAX(id) AS id FROM run_events WHERE run_id = ?");
    this.markEnded = this.db.prepare(
      "INSERT INTO run_event_ends (run_id, ended_at) VALUES (?, ?) ON CONFLICT (run_id) DO UPDATE SET ended_at = excluded.ended_at",
    );
    const deleteEvents = this.db.prepare(
      "DELETE FROM run_events WHERE run_id IN (SELECT run_id FROM run_event_ends WHERE ended_at < ?)",
    );
    const deleteEnds = this.db.prepare("DELETE FROM run_event_ends WHERE ended_at < ?");
    this.prune = this.db.transaction((before: number) => {
      deleteEvents.run(before);
      deleteEnds.run(before);
    });
  }

  /** Writes one event; it is durable when this returns. */
  append(runId: string, event: RunStreamEvent): void {
    this.insert.run(runId, Number(event.id), event.event, JSON.stringify(event.data ?? null));
  }

  /** The run's events after `afterId` (all of them for NaN), in order. */
  after(runId: string, afterId: number): RunStreamEvent[] {
    const rows = this.selectAfter.all(runId, Number.isNaN(afterId) ? -1 : afterId) as Array<{
      id: number;
      event: string;
      data: string;
    }>;
    return rows.map((row) => ({
      id: String(row.id),
      event: row.event,
      data: JSON.parse(row.data) as unknown,
    }));
  }

  /** The highest id written for the run, or undefined. */
  lastId(runId: string): number | undefined {
    const row = this.selectLast.get(runId) as { id: number | null } | undefined;
    return row?.id ?? undefined;
  }

  /** The run's stream is over: its events are dropped once `ttlMs` has passed (see `prune`). */
  ended(runId: string, now: number): void {
    this.markEnded.run(runId, now);
  }

  /** Drops the events of runs that ended before `before` (ms since the epoch). */
  pruneEndedBefore(before: number): void {
    this.prune(before);
  }

  close(): void {
    this.db.close();
  }
}
