import assert from "node:assert/strict";
import os from "node:os";
import { describe, it } from "node:test";
import { parseAgentServerConfig } from "../src/config.js";

describe("parseAgentServerConfig", () => {
  it("defaults to port 2024 with fallback, and an explicit port has none", () => {
    const byDefault = parseAgentServerConfig({ flags: {}, env: {}, cwd: "/p" });
    assert.equal(byDefault.port, 2024);
    assert.equal(byDefault.portFallback, true);
    assert.equal(byDefault.graphConfigPath, "/p/graph.json");
    assert.equal(byDefault.dataDir, "/p/.berth/agent-server");
    assert.ok(Object.isFrozen(byDefault));
    const explicit = parseAgentServerConfig({
      flags: { port: "0", config: "x/langgraph.json" },
      env: {},
      cwd: "/p",
    });
    assert.equal(explicit.port, 0);
    assert.equal(explicit.portFallback, false);
    assert.equal(explicit.dataDir, "/p/x/.berth/agent-server");
  });

  it("a stalled request is cut after 60 s by default; BERTH_REQUEST_TIMEOUT_SECS changes it", () => {
    assert.equal(parseAgentServerConfig({ flags: {}, env: {}, cwd: "/p" }).requestTimeoutMs, 60_000);
    const two = parseAgentServerConfig({ flags: {}, env: { BERTH_REQUEST_TIMEOUT_SECS: "2" }, cwd: "/p" });
    assert.equal(two.requestTimeoutMs, 2_000);
    assert.throws(
      () => parseAgentServerConfig({ flags: {}, env: { BERTH_REQUEST_TIMEOUT_SECS: "0" }, cwd: "/p" }),
      /BERTH_REQUEST_TIMEOUT_SECS/,
    );
  });

  it("workers: one per core by default on SQLite, 1 on PostgreSQL or a hand-over, more refused there", () => {
    const cores = os.availableParallelism();
    assert.equal(parseAgentServerConfig({ flags: {}, env: {}, cwd: "/p" }).workers, cores);
    // berth dev: one process unless asked (the official dev server's, issue 29).
    assert.equal(parseAgentServerConfig({ flags: { defaultWorkers: 1 }, env: {}, cwd: "/p" }).workers, 1);
    assert.equal(
      parseAgentServerConfig({ flags: { defaultWorkers: 1 }, env: { BERTH_WORKERS: "2" }, cwd: "/p" })
        .workers,
      2,
    );
    assert.equal(parseAgentServerConfig({ flags: {}, env: { BERTH_WORKERS: "3" }, cwd: "/p" }).workers, 3);
    assert.equal(
      parseAgentServerConfig({ flags: { workers: "1" }, env: { BERTH_WORKERS: "3" }, cwd: "/p" }).workers,
      1,
    );
    assert.equal(parseAgentServerConfig({ flags: { waitForLock: true }, env: {}, cwd: "/p" }).workers, 1);
    const pg = { DATABASE_URI: "postgres://db/x" };
    assert.equal(parseAgentServerConfig({ flags: {}, env: pg, cwd: "/p" }).workers, 1);
    assert.throws(
      () => parseAgentServerConfig({ flags: { workers: "2" }, env: pg, cwd: "/p" }),
      /embedded SQLite/,
    );
    assert.throws(
      () => parseAgentServerConfig({ flags: { workers: "0" }, env: {}, cwd: "/p" }),
      /Invalid workers/,
    );
    assert.throws(
      () => parseAgentServerConfig({ flags: { workers: "2", waitForLock: true }, env: {}, cwd: "/p" }),
      /wait-for-lock/,
    );
  });

  it("reads the public URL (LANGGRAPH_API_URL) and whether LangChain traces (LANGSMITH_TRACING)", () => {
    const none = parseAgentServerConfig({ flags: {}, env: {}, cwd: "/p" });
    assert.equal(none.publicUrl, null);
    assert.equal(none.tracing, false);
    const set = parseAgentServerConfig({
      flags: {},
      env: { LANGGRAPH_API_URL: "https://berth.example/agents/d1/", LANGSMITH_TRACING: "true" },
      cwd: "/p",
    });
    assert.equal(set.publicUrl, "https://berth.example/agents/d1");
    assert.equal(set.tracing, true);
    assert.equal(
      parseAgentServerConfig({ flags: {}, env: { LANGCHAIN_TRACING_V2: "true" }, cwd: "/p" }).tracing,
      true,
    );
  });

  it("rejects bad numbers with the setting's name", () => {
    assert.throws(
      () => parseAgentServerConfig({ flags: { port: "http" }, env: {}, cwd: "/" }),
      /Invalid port/,
    );
    assert.throws(
      () => parseAgentServerConfig({ flags: {}, env: { BG_JOB_TIMEOUT_SECS: "-1" }, cwd: "/" }),
      /BG_JOB_TIMEOUT_SECS/,
    );
  });

  it("a shared data directory (BERTH_SHARED_DATA_DIR) needs Redis between the processes", () => {
    assert.equal(parseAgentServerConfig({ flags: {}, env: {}, cwd: "/" }).sharedDataDir, false);
    assert.throws(
      () => parseAgentServerConfig({ flags: {}, env: { BERTH_SHARED_DATA_DIR: "1" }, cwd: "/" }),
      /needs REDIS_URI/,
    );
    const shared = parseAgentServerConfig({
      flags: {},
      env: { BERTH_SHARED_DATA_DIR: "1", REDIS_URI: "redis://cache:6379" },
      cwd: "/",
    });
    assert.equal(shared.sharedDataDir, true);
  });

  it("reads the official server's names for the scaled-out settings; roles need a shared database", () => {
    const config = parseAgentServerConfig({
      flags: {},
      env: {
        DATABASE_URI: "postgresql://db/agents",
        REDIS_URI: "redis://cache:6379",
        REDIS_KEY_PREFIX: "d1:",
        BERTH_ROLE: "worker",
        N_JOBS_PER_WORKER: "4",
        PORT: "8000",
      },
      cwd: "/",
    });
    assert.equal(config.role, "worker");
    assert.equal(config.databaseUrl, "postgresql://db/agents");
    assert.equal(config.redisUrl, "redis://cache:6379");
    assert.equal(config.redisKeyPrefix, "d1:");
    assert.equal(config.jobsPerWorker, 4);
    assert.equal(config.port, 8000);
    const flags = parseAgentServerConfig({
      flags: { role: "api", databaseUrl: "postgres://x/y", redisUrl: "redis://r" },
      env: { DATABASE_URI: "postgresql://ignored/z" },
      cwd: "/",
    });
    assert.equal(flags.databaseUrl, "postgres://x/y", "a flag wins over the environment");
    assert.equal(parseAgentServerConfig({ flags: {}, env: {}, cwd: "/" }).role, "all");
    assert.throws(
      () => parseAgentServerConfig({ flags: { role: "api" }, env: {}, cwd: "/" }),
      /DATABASE_URI/,
    );
    assert.throws(
      () => parseAgentServerConfig({ flags: { role: "both" }, env: {}, cwd: "/" }),
      /Invalid role/,
    );
    assert.throws(
      () => parseAgentServerConfig({ flags: {}, env: { DATABASE_URI: "mysql://x" }, cwd: "/" }),
      /DATABASE_URI/,
    );
    assert.throws(
      () => parseAgentServerConfig({ flags: {}, env: { BERTH_DATABASE_SCHEMA: 'a"b' }, cwd: "/" }),
      /BERTH_DATABASE_SCHEMA/,
    );
  });
});
