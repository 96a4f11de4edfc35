import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Where `berth up` was last told to be found (per OS user). */
export function endpointFile(home = os.homedir()): string {
  return path.join(home, ".berth", "control-plane.json");
}

/** What `berth up` records as it listens. */
interface EndpointRecord {
  url: string;
  pid: number;
  data_dir: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Records the URL a running `berth up` listens on (its port may have moved off the default). */
export function recordEndpoint(url: string, dataDir: string, file = endpointFile()): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const record: EndpointRecord = { url, pid: process.pid, data_dir: dataDir };
    fs.writeFileSync(file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  } catch {
    // A read-only home only costs the discovery: --url still works.
  }
}

/** Forgets the record when this process wrote it (on a clean stop). */
export function forgetEndpoint(file = endpointFile()): void {
  try {
    const record = JSON.parse(fs.readFileSync(file, "utf8")) as EndpointRecord;
    if (record.pid === process.pid) fs.rmSync(file, { force: true });
  } catch {
    // nothing recorded
  }
}

/**
 * The control plane URL a command uses: the one given (--url / BERTH_URL), else the one a running
 * `berth up` of this user recorded, else the default. `source` says which, for error messages.
 */
export function resolveControlPlaneUrl(
  given: string | undefined,
  fallback: string,
  file = endpointFile(),
): { url: string; source: string } {
  if (given) return { url: given, source: "--url/BERTH_URL" };
  try {
    const record = JSON.parse(fs.readFileSync(file, "utf8")) as EndpointRecord;
    if (typeof record.url === "string" && Number.isInteger(record.pid) && alive(record.pid)) {
      return { url: record.url, source: `the running berth up (${file})` };
    }
  } catch {
    // no running berth up recorded
  }
  return { url: fallback, source: "the default" };
}
