import { randomUUID } from "node:crypto";
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

/** What the lock file says of its holder. Older Berth versions wrote the bare pid. */
interface Holder {
  pid: number;
  /** The holder's PID namespace (`/proc/self/ns/pid`), or null where it could not be read. */
  pidns: string | null;
  token: string | null;
}

/** How often a holder touches its lock file, and how long after the last touch it counts as dead. */
const HEARTBEAT_MS = 1_000;
const STALE_AFTER_MS = 15_000;
/** An empty lock file is one being written right now, unless it is this old (a crash mid-write). */
const EMPTY_GRACE_MS = 5_000;

/**
 * An exclusive lock on a data directory, so two processes never run the same queue (the agent
 * server's start-up recovery assumes every `running` run it finds belongs to a dead process). A lock
 * left by a dead process is taken over.
 *
 * The pid alone cannot tell: the local runtime's sandbox gives every agent server its own PID
 * namespace, where the old and the new revision of a deployment are both pid 2. So the file names
 * the holder's namespace too; a holder in ours is checked by its pid, a holder in another by its
 * heartbeat (it touches the file every second while it holds the lock).
 */
export function lockDataDir(dataDir: string, fileName = "server.lock"): DataDirLock {
  const lockPath = path.join(dataDir, fileName);
  const own: Holder = { pid: process.pid, pidns: pidNamespace(), token: randomUUID() };
  for (let tries = 0; tries < 2; tries += 1) {
    try {
      const fd = fs.openSync(lockPath, "wx");
      fs.writeSync(fd, JSON.stringify(own));
      fs.closeSync(fd);
      return held(lockPath, own.token ?? "");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = readHolder(lockPath);
      if (holder === null) continue; // released between our open and our read
      if (holderAlive(lockPath, holder, own)) throw new DataDirBusyError(dataDir, holder.pid);
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

/** The lock we hold: heartbeats until released; release removes the file only if still ours. */
function held(lockPath: string, token: string): DataDirLock {
  const heartbeat = setInterval(() => {
    const now = new Date();
    try {
      fs.utimesSync(lockPath, now, now);
    } catch {
      // Removed under us: release will find nothing to remove.
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();
  return {
    release() {
      clearInterval(heartbeat);
      try {
        if (readHolder(lockPath)?.token === token) fs.unlinkSync(lockPath);
      } catch {
        // Already gone: nothing to release.
      }
    },
  };
}

function holderAlive(lockPath: string, holder: Holder, own: Holder): boolean {
  const age = Date.now() - mtimeMs(lockPath);
  if (holder.pid === 0) return age < EMPTY_GRACE_MS;
  const sameNamespace = holder.pidns === null || own.pidns === null || holder.pidns === own.pidns;
  if (!sameNamespace) return age < STALE_AFTER_MS;
  return holder.pid !== process.pid && isAlive(holder.pid);
}

function readHolder(lockPath: string): Holder | null {
  let text: string;
  try {
    text = fs.readFileSync(lockPath, "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  if (/^\d+$/.test(text)) return { pid: Number(text), pidns: null, token: null };
  try {
    const parsed = JSON.parse(text) as Partial<Holder>;
    if (typeof parsed.pid === "number" && Number.isInteger(parsed.pid))
      return {
        pid: parsed.pid,
        pidns: typeof parsed.pidns === "string" ? parsed.pidns : null,
        token: typeof parsed.token === "string" ? parsed.token : null,
      };
  } catch {
    // Half written or foreign: treated as a lock being written.
  }
  return { pid: 0, pidns: null, token: null };
}

function pidNamespace(): string | null {
  try {
    return fs.readlinkSync("/proc/self/ns/pid");
  } catch {
    return null; // not Linux, or /proc not mounted: the pid check is all there is
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
