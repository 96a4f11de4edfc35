import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before } from "node:test";
import { makeTempDir } from "@berth-platform/testkit";
import type { InjectOptions, LightMyRequestResponse } from "fastify";
import pino from "pino";
import { parseControlPlaneConfig } from "../src/config.js";
import { type ControlPlane, createControlPlane } from "../src/server.js";
import { hashApiKey } from "../src/services/auth.js";
import { dropSchema, freshSchema, TEST_DATABASE_URL } from "./postgres.js";

/** The bootstrap key every in-process test plane starts with. */
export const ADMIN_KEY = "test-admin-key-0123456789";

/** A control plane in this process (no socket), with its log lines and data dir. */
export interface TestPlane {
  plane: ControlPlane;
  dataDir: string;
  /** Where its state lives when it is in PostgreSQL (BERTH_TEST_STORAGE=postgres): the schema's rows. */
  postgres: { root: string; name: string } | undefined;
  logs: string[];
  /** Injects a request with the admin key (override headers to change or drop it). */
  call(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** Injects a request exactly as given (no key added). */
  raw(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** Adds a tenant with its own key; returns both. */
  addTenant(): Promise<{ tenantId: string; key: string }>;
}

/** A fresh control plane for the test file (call at the top level): started before, removed after. */
export function usePlane(env: Record<string, string> = {}): () => TestPlane {
  let current: TestPlane | undefined;
  let close: (() => Promise<void>) | undefined;
  before(async () => {
    const opened = await openPlane(env);
    current = opened.plane;
    close = opened.close;
  });
  after(async () => {
    await close?.();
  });
  return () => {
    if (!current) throw new Error("plane not started");
    return current;
  };
}

/**
 * Starts a fresh control plane; the caller closes it. With BERTH_TEST_STORAGE=postgres its state
 * lives in a fresh schema of DATABASE_URL's database (dropped on close) instead of SQLite.
 */
export async function openPlane(
  env: Record<string, string> = {},
  storage: string | undefined = process.env.BERTH_TEST_STORAGE,
): Promise<{ plane: TestPlane; close(): Promise<void> }> {
  const postgres = await testDatabase(storage);
  const temp = makeTempDir("berth-cp-");
  const logs: string[] = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => void logs.push(line) });
  const config = parseControlPlaneConfig({
    flags: { port: 0, dataDir: temp.dir, apiKey: ADMIN_KEY, databaseUrl: postgres?.url },
    env: { BERTH_PROVISION_INTERVAL_MS: "100", ...env },
    cwd: temp.dir,
  });
  const plane = await createControlPlane(config, { logger });
  const testPlane: TestPlane = {
    plane,
    dataDir: temp.dir,
    postgres: postgres && { root: postgres.root, name: postgres.name },
    logs,
    raw: (options) => plane.app.inject(options),
    call: (options) =>
      plane.app.inject({ ...options, headers: { "x-api-key": ADMIN_KEY, ...(options.headers ?? {}) } }),
    async addTenant() {
      const tenantId = randomUUID();
      const key = `key-${randomUUID()}`;
      const now = new Date().toISOString();
      await plane.storage.tenants.create({
        id: tenantId,
        name: `t-${tenantId.slice(0, 8)}`,
        created_at: now,
      });
      await plane.storage.tenants.addKey(hashApiKey(key), [tenantId], now);
      return { tenantId, key };
    },
  };
  return {
    plane: testPlane,
    async close() {
      await plane.close();
      temp.cleanup();
      if (postgres) await dropSchema(postgres.root, postgres.name);
    },
  };
}

/** The PostgreSQL schema a test plane uses (BERTH_TEST_STORAGE=postgres), or undefined: SQLite. */
async function testDatabase(
  storage: string | undefined,
): Promise<{ root: string; name: string; url: string } | undefined> {
  if (storage !== "postgres") return undefined;
  if (!TEST_DATABASE_URL) throw new Error("BERTH_TEST_STORAGE=postgres needs DATABASE_URL");
  return { root: TEST_DATABASE_URL, ...(await freshSchema(TEST_DATABASE_URL)) };
}

/** A valid external_container create body. */
export function externalBody(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    source: "external_container",
    source_config: { resource_spec: {} },
    source_revision_config: { image_uri: "registry.example/agent@sha256:abc" },
    secrets: [],
    ...extra,
  };
}

/** A valid repo_host create body. */
export function repoBody(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    source: "repo_host",
    source_config: { repo_url: "https://git.example/org/agent", build_on_push: false },
    source_revision_config: { repo_ref: "main", graph_config_path: "graph.json" },
    secrets: [],
    ...extra,
  };
}

/** Polls `read` until `done` holds (or fails after `ms`). */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until)
      throw new Error(`condition not met in ${ms} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Registers a Kubernetes listener (`k8s`) serving `namespaces` (`[]`: any); asserts the 201. */
export async function addListener<T = { id: string; listener_key: string }>(
  plane: TestPlane,
  computeId: string,
  namespaces: string[] = ["agents"],
): Promise<T> {
  const res = await plane.call({
    method: "POST",
    url: "/v2/listeners",
    payload: { compute_type: "k8s", compute_id: computeId, compute_config: { k8s_namespaces: namespaces } },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<T>();
}
