import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before } from "node:test";
import { promisify } from "node:util";
import { makeTempDir, repoRoot, type SpawnedServer, spawnBerth } from "@berth-platform/testkit";
import { Client } from "@langchain/langgraph-sdk";

const run = promisify(execFile);

/** Fixture projects with their own package.json + package-lock.json (not workspaces). */
export const OWN_DEPS_FIXTURES = {
  esm: path.join(repoRoot, "test/fixtures/own-deps-project"),
  commonjs: path.join(repoRoot, "test/fixtures/own-deps-cjs-project"),
  features: path.join(repoRoot, "test/fixtures/features-project"),
  official: path.join(repoRoot, "test/fixtures/official-graphs-project"),
} as const;

/**
 * Copies a fixture project out of the repository (so Berth's hoisted node_modules is not on its
 * resolution path), installs its own node_modules offline from the npm cache with `npm ci`, and runs
 * `berth dev` on it for the test file; stopped and removed after it.
 */
export function useOwnDepsServer(
  fixture: keyof typeof OWN_DEPS_FIXTURES,
  env: Record<string, string> = {},
  /** Changes the copied project before it is installed and served (e.g. its graph.json). */
  prepare?: (projectDir: string) => void,
): {
  client(): Client;
  server(): SpawnedServer;
  projectDir: string;
} {
  const temp = makeTempDir("berth-own-deps-");
  const projectDir = path.join(temp.dir, "project");
  let server: SpawnedServer | undefined;
  let client: Client | undefined;
  before(async () => {
    fs.cpSync(OWN_DEPS_FIXTURES[fixture], projectDir, {
      recursive: true,
      filter: (src) => !src.includes(`${path.sep}node_modules`),
    });
    prepare?.(projectDir);
    await run("npm", ["ci", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"], {
      cwd: projectDir,
      timeout: 120_000,
    });
    server = await spawnBerth(
      [
        "dev",
        "--config",
        path.join(projectDir, "graph.json"),
        "--port",
        "0",
        "--data-dir",
        path.join(temp.dir, "data"),
      ],
      { cwd: projectDir, timeoutMs: 60_000, env },
    );
    client = new Client({ apiUrl: server.url });
  });
  after(async () => {
    await server?.stop();
    temp.cleanup();
  });
  return {
    client: () => {
      if (!client) throw new Error("server not started");
      return client;
    },
    server: () => {
      if (!server) throw new Error("server not started");
      return server;
    },
    projectDir,
  };
}
