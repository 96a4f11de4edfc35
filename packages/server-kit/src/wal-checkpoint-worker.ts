// The worker thread of WalCheckpoints: a connection per file, a PASSIVE checkpoint of each every
// interval, and a last one when asked to stop. PASSIVE never waits for a lock and never blocks a
// writer or a reader; frames a reader still needs are left for the next round.
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const { files, intervalMs } = workerData as { files: string[]; intervalMs: number };
const port = parentPort;
if (!port) throw new Error("wal-checkpoint-worker runs as a worker thread");

const connections = files.map((file) => {
  const db = new Database(file, { fileMustExist: true });
  db.pragma("synchronous = NORMAL");
  return db;
});

function checkpointAll(): void {
  for (const db of connections) {
    try {
      db.pragma("wal_checkpoint(PASSIVE)");
    } catch (error) {
      port?.postMessage({ error: error instanceof Error ? error.message : String(error) });
    }
  }
}

const timer = setInterval(checkpointAll, intervalMs);
port.on("message", (message: unknown) => {
  if (message !== "stop") return;
  clearInterval(timer);
  checkpointAll();
  for (const db of connections) db.close();
  port.close();
});
