import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** A fresh temporary directory, removed by `cleanup` (register it with the test's `after`). */
export function makeTempDir(prefix = "berth-test-"): { dir: string; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
