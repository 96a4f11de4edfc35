#!/usr/bin/env node
// Refreshes the dashboard screenshots the README links to (docs/screens/*.png): runs the browser
// tests that take them with BERTH_SCREENS_DIR pointing there. `npm test` writes its screenshots to
// temporary directories only, so a checkout stays clean after it.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const result = spawnSync(
  process.execPath,
  [
    path.join(root, "scripts/run-tests.mjs"),
    "test/e2e/dashboard.test.ts",
    "test/e2e/dashboard-chat-streaming.test.ts",
    "test/e2e/dashboard-thread-edit.test.ts",
    "test/e2e/dashboard-traces.test.ts",
  ],
  {
    stdio: "inherit",
    cwd: root,
    env: { ...process.env, BERTH_SCREENS_DIR: path.join(root, "docs/screens") },
  },
);
process.exit(result.status ?? 1);
