import { Worker } from "node:worker_threads";

/**
 * The WAL size at which a connection still checkpoints by itself while WalCheckpoints runs: a
 * safety net (64 MB of 4 KB pages) for a worker that died or falls behind, far above what the
 * worker lets the WAL reach.
 */
export const BACKGROUND_AUTOCHECKPOINT_PAGES = 16_384;

/** The WAL file's size after a restart (`journal_size_limit`): about SQLite's default threshold. */
export const WAL_SIZE_AT_RESTART_BYTES = 4 * 1024 * 1024;

/** A running background checkpointer. */
export interface WalCheckpoints {
  /** A last checkpoint, then the worker exits; call before closing the files' connections. */
  stop(): Promise<void>;
}

/**
 * Checkpoints the WAL of SQLite files from a worker thread. SQLite's own automatic checkpoint
 * (every 1,000 pages) runs inside whichever commit crosses the threshold: it copies the WAL into
 * the database file and syncs it, 10+ ms with the event loop blocked, once every few hundred runs
 * (docs/decisions.md, issue 12 fourth pass). Here the copy and the sync happen on another thread;
 * the files' own connections keep a far higher threshold (BACKGROUND_AUTOCHECKPOINT_PAGES).
 */
export function startWalCheckpoints(
  files: string[],
  options: { intervalMs?: number; onError?: (message: string) => void } = {},
): WalCheckpoints {
  const worker = new Worker(new URL("./wal-checkpoint-worker.js", import.meta.url), {
    workerData: { files, intervalMs: options.intervalMs ?? 200 },
  });
  // It must not keep a process alive that is otherwise done.
  worker.unref();
  worker.on("message", (message: { error?: string }) => {
    if (message.error) options.onError?.(message.error);
  });
  worker.on("error", (error) => options.onError?.(error.message));
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  return {
    async stop() {
      // Held from here: a caller awaiting the stop keeps the process alive until the worker exits.
      worker.ref();
      worker.postMessage("stop");
      const timeout = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), 5_000).unref());
      if ((await Promise.race([exited, timeout])) === "late") await worker.terminate();
    },
  };
}
