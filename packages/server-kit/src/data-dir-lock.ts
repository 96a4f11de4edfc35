import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** A held data-directory lock. */
export interface DataDirLock {
  release(): void;
}

/** The lock is held by another live process. */
export class DataDirBusyError extends Error {
  constructor(
    dataDir: string,
    readonly holder: number,
  ) {
    super(
      `The data directory ${dataDir} is in use by process ${holder}. Stop it or choose another --data-dir.`,
    );
    this.name = "DataDirBusyError";
  }
}

/**
 * An exclusive lock on a data directory, so two processes never run the same queue (the agent
 * server's start-up recovery assumes every `running` run it finds belongs to a dead process). A lock
 * left by a dead process is taken over.
 */
export function lockDataDir(dataDir: string, fileName = "server.lock"): DataDirLock {
  const lockPath = path.join(dataDir, fileName);
  for (let tries = 0; tries < 2; tries += 1) {
    try {
      const fd = fs.openSync(lockPath, "wx");
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      return {
        release() {
          try {
            if (fs.readFileSync(lockPath, "utf8") === String(process.pid)) fs.unlinkSync(lockPath);
          } catch {
            // Already gone: nothing to release.
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = readHolder(lockPath);
      if (holder === null) continue; // released between our open and our read
      // An empty file is a lock being written right now, unless it is old (a crash mid-write).
      if (holder === 0 && Date.now() - mtimeMs(lockPath) < 5_000) throw new DataDirBusyError(dataDir, 0);
      if (holder > 0 && holder !== process.pid && isAlive(holder))
        throw new DataDirBusyError(dataDir, holder);
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`Could not lock the data directory ${dataDir}`);
}

/**
 * Waits until the lock can be taken (its holder exits), polling; rejects when `signal` aborts.
 * This is the hand-over of blue/green deploys: the new process waits for the old one to drain.
 */
export async function waitForDataDirLock(
  dataDir: string,
  options: { fileName?: string; pollMs?: number; signal?: AbortSignal } = {},
): Promise<DataDirLock> {
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      return lockDataDir(dataDir, options.fileName);
    } catch (error) {
      if (!(error instanceof DataDirBusyError)) throw error;
    }
    await sleep(options.pollMs ?? 100, undefined, { signal: options.signal });
  }
}

function readHolder(lockPath: string): number | null {
  try {
    const holder = Number(fs.readFileSync(lockPath, "utf8"));
    return Number.isInteger(holder) ? holder : 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

function mtimeMs(lockPath: string): number {
  try {
    return fs.statSync(lockPath).mtimeMs;
  } catch {
    return 0;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
