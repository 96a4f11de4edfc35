// Test clusters whose test process was killed outright: found by their pid files and stopped.
import fs from "node:fs";
import path from "node:path";

/** Prefix of every test cluster's temporary directory. */
export const CLUSTER_DIR_PREFIX = "berth-kube-";
/** The pid of the test process that started a cluster, in its directory. */
export const OWNER_FILE = "owner.pid";
/** The components' pids, one a line, in its directory. */
export const PIDS_FILE = "components.pids";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops the components of clusters whose test process was killed outright (SIGKILL runs no
 * handler) and removes their directories, so they do not run on for hours.
 */
export function reapOrphans(tmp: string): void {
  let entries: string[];
  try {
    entries = fs.readdirSync(tmp).filter((name) => name.startsWith(CLUSTER_DIR_PREFIX));
  } catch {
    return;
  }
  for (const name of entries) {
    const dir = path.join(tmp, name);
    const ownerFile = path.join(dir, OWNER_FILE);
    // No owner yet: a cluster being set up right now (or not one of ours).
    if (!fs.existsSync(ownerFile)) continue;
    const owner = Number(fs.readFileSync(ownerFile, "utf8"));
    if (owner > 0 && alive(owner)) continue;
    const pids = fs.existsSync(path.join(dir, PIDS_FILE))
      ? fs.readFileSync(path.join(dir, PIDS_FILE), "utf8").split("\n").map(Number)
      : [];
    for (const pid of pids) {
      // Only our own programs: a pid may have been reused since.
      let command = "";
      try {
        command = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
      } catch {
        continue;
      }
      if (command.includes(dir)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
