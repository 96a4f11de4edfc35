#!/usr/bin/env node
// Runs every *.test.ts of the repository with node:test (through tsx). Node 20's --test does not
// expand globs, so the files are found here. Extra arguments are passed to node (e.g. a file filter).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const roots = ["packages", "test", "examples"].map((d) => path.join(root, d));

function find(dir, out) {
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) find(full, out);
    else if (entry.name.endsWith(".test.ts")) out.push(full);
  }
  return out;
}

const filters = process.argv.slice(2);
const files = roots
  .flatMap((dir) => find(dir, []))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();
if (files.length === 0) {
  console.error("No test files found.");
  process.exit(1);
}
// Every `berth up` a test starts saves a CLI profile: into a temporary directory, not ~/.berth.
const configDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-test-config-"));
const result = spawnSync(
  process.execPath,
  ["--import", "tsx", "--test", "--test-concurrency=2", "--test-timeout=300000", ...files],
  { stdio: "inherit", cwd: root, env: { ...process.env, BERTH_CONFIG_DIR: configDir } },
);
fs.rmSync(configDir, { recursive: true, force: true });
process.exit(result.status ?? 1);
