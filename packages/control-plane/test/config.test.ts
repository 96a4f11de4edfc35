// Config is parsed once from flags and environment; bad values are readable errors.
import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { parseControlPlaneConfig } from "../src/config.js";

const parse = (flags: Record<string, string | number | undefined> = {}, env: Record<string, string> = {}) =>
  parseControlPlaneConfig({ flags, env, cwd: "/work" });

describe("control plane config", () => {
  it("defaults: 127.0.0.1:8124 with fallback, ./.berth/control-plane, no bootstrap key, 1 MiB bodies", () => {
    const c = parse();
    assert.equal(c.host, "127.0.0.1");
    assert.equal(c.port, 8124);
    assert.equal(c.portFallback, true);
    assert.equal(c.dataDir, path.resolve("/work/.berth/control-plane"));
    assert.equal(c.bootstrapApiKey, null);
    assert.equal(c.secretsKey, null);
    assert.equal(c.bodyLimitBytes, 1024 * 1024);
    assert.ok(Object.isFrozen(c));
  });

  it("a stalled request is cut after 60 s by default; BERTH_REQUEST_TIMEOUT_SECS changes it", () => {
    assert.equal(parse().requestTimeoutMs, 60_000);
    assert.equal(parse({}, { BERTH_REQUEST_TIMEOUT_SECS: "2" }).requestTimeoutMs, 2_000);
    assert.throws(() => parse({}, { BERTH_REQUEST_TIMEOUT_SECS: "0" }), /BERTH_REQUEST_TIMEOUT_SECS/);
  });

  it("flags win over the environment; an explicit port does not fall back", () => {
    const c = parse(
      { port: "0", apiKey: "flag-key-0123456789", dataDir: "d" },
      { BERTH_API_KEY: "env-key-0123456789", BERTH_CONTROL_PLANE_PORT: "9000" },
    );
    assert.equal(c.port, 0);
    assert.equal(c.portFallback, false);
    assert.equal(c.bootstrapApiKey, "flag-key-0123456789");
    assert.equal(c.dataDir, "/work/d");
    assert.equal(parse({}, { BERTH_API_KEY: "env-key-0123456789" }).bootstrapApiKey, "env-key-0123456789");
  });

  it("tracing: on by default with 14 days and 1 GiB per project; BERTH_TRACING=off and limits from the environment", () => {
    const c = parse().tracing;
    assert.equal(c.enabled, true);
    assert.equal(c.retentionDays, 14);
    assert.equal(c.projectMaxBytes, 1024 ** 3);
    const set = parse(
      {},
      {
        BERTH_TRACING: "off",
        BERTH_TRACE_RETENTION_DAYS: "0",
        BERTH_TRACE_QUEUE_RUNS: "10",
        BERTH_TRACE_SWEEP_SECS: "5",
      },
    ).tracing;
    assert.equal(set.enabled, false);
    assert.equal(set.retentionDays, 0);
    assert.equal(set.queueRuns, 10);
    assert.equal(set.sweepIntervalMs, 5000);
    assert.throws(
      () => parse({}, { BERTH_TRACE_INGEST_LIMIT_BYTES: "12" }),
      /BERTH_TRACE_INGEST_LIMIT_BYTES/,
    );
    assert.throws(() => parse({}, { BERTH_TRACING: "maybe" }), /BERTH_TRACING/);
  });

  it("PostgreSQL only from --database-url or BERTH_DATABASE_URL, never plain DATABASE_URL", () => {
    const url = "postgresql://berth@db:5432/berth";
    assert.equal(parse().databaseUrl, null);
    assert.equal(parse({}, { DATABASE_URL: url }).databaseUrl, null);
    assert.equal(parse({}, { BERTH_DATABASE_URL: url }).databaseUrl, url);
    assert.equal(parse({ databaseUrl: url }, { BERTH_DATABASE_URL: "postgres://other" }).databaseUrl, url);
    assert.throws(() => parse({ databaseUrl: "mysql://db/berth" }), /postgresql:\/\/ URL/);
  });

  it("Redis for the agent servers from --redis-url or REDIS_URI", () => {
    assert.equal(parse().redisUrl, null);
    assert.equal(parse({}, { REDIS_URL: "redis://ci:6379" }).redisUrl, null);
    assert.equal(parse({}, { REDIS_URI: "redis://cache:6379" }).redisUrl, "redis://cache:6379");
    assert.equal(
      parse({ redisUrl: "rediss://a:6380" }, { REDIS_URI: "redis://b" }).redisUrl,
      "rediss://a:6380",
    );
    assert.throws(() => parse({ redisUrl: "http://cache" }), /redis:\/\/ or rediss:\/\/ URL/);
  });

  it("rejects bad ports, short keys and malformed secrets keys", () => {
    assert.throws(() => parse({ port: "70000" }), /Invalid port/);
    assert.throws(() => parse({ port: "abc" }), /Invalid port/);
    assert.throws(() => parse({ apiKey: "short" }), /16–512/);
    assert.throws(() => parse({}, { BERTH_SECRETS_KEY: "dG9vIHNob3J0" }), /32 bytes/);
    const key = Buffer.alloc(32, 7).toString("base64");
    assert.equal(parse({}, { BERTH_SECRETS_KEY: key }).secretsKey?.length, 32);
  });

  it("build_on_push polls every 60 s by default; BERTH_PUSH_POLL_SECS=0 leaves only the webhook", () => {
    assert.equal(parse().pushPollMs, 60_000);
    assert.equal(parse({}, { BERTH_PUSH_POLL_SECS: "15" }).pushPollMs, 15_000);
    assert.equal(parse({}, { BERTH_PUSH_POLL_SECS: "0" }).pushPollMs, 0);
    assert.throws(() => parse({}, { BERTH_PUSH_POLL_SECS: "-1" }), /BERTH_PUSH_POLL_SECS/);
    assert.throws(() => parse({}, { BERTH_PUSH_POLL_SECS: "1.5" }), /BERTH_PUSH_POLL_SECS/);
  });
});
