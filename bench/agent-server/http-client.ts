import { Client } from "@langchain/langgraph-sdk";
import { Pool } from "undici";
import { type GraphId, runInput } from "./workload.js";

/**
 * What drives the server in the closed loops. `http` is plain HTTP/1.1 on undici (the library under
 * Node's fetch) with keep-alive; `sdk` is the official SDK, one Client per simulated user.
 *
 * The default is `http` because the client shares the two cores with the server under test: on
 * this machine the SDK spends about 560 µs of CPU per thread create (fetch about 430–650 µs,
 * undici.request about 170 µs) against Berth's 210–260 µs, so with the SDK the figures measured
 * the client more than Berth. Both servers always get the same client in one bench run.
 */
export type ClientKind = "http" | "sdk";
export const CLIENT_KINDS: readonly ClientKind[] = ["http", "sdk"];

/** The three calls the loops make, the same on either client. */
export interface BenchClient {
  createThread(): Promise<string>;
  /** POST /threads/{id}/runs; `createThread` adds `if_not_exists: "create"`. Returns the run id. */
  createRun(threadId: string, graphId: GraphId, createThread: boolean): Promise<string>;
  /** GET /threads/{id}/runs/{run}/join: the thread's values once the run ended. */
  join(threadId: string, runId: string): Promise<unknown>;
}

/** A set of simulated users' clients and how to release their connections. */
export interface BenchClients {
  forUser(index: number): BenchClient;
  close(): Promise<void>;
}

/** Retries are off in both: a failed request is counted, not hidden. */
function sdkClient(url: string): BenchClient {
  const client = new Client({ apiUrl: url, apiKey: null, callerOptions: { maxRetries: 0 } });
  return {
    createThread: async () => (await client.threads.create()).thread_id,
    createRun: async (threadId, graphId, createThread) =>
      (
        await client.runs.create(threadId, graphId, {
          input: runInput(),
          ...(createThread ? { ifNotExists: "create" as const } : {}),
        })
      ).run_id,
    join: (threadId, runId) => client.runs.join(threadId, runId),
  };
}

async function jsonOf(
  pool: Pool,
  method: "GET" | "POST",
  path: string,
  body?: Record<string, unknown>,
): Promise<unknown> {
  const response = await pool.request({
    method,
    path,
    ...(body
      ? { body: JSON.stringify(body), headers: { "content-type": "application/json" } }
      : { headers: {} }),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) {
    throw new Error(`${method} ${path} answered ${response.statusCode}: ${text.slice(0, 200)}`);
  }
  return JSON.parse(text) as unknown;
}

function idOf(value: unknown, key: "thread_id" | "run_id"): string {
  const id = (value as Record<string, unknown> | null)?.[key];
  if (typeof id !== "string")
    throw new Error(`response has no ${key}: ${JSON.stringify(value).slice(0, 200)}`);
  return id;
}

function httpClient(pool: Pool): BenchClient {
  return {
    createThread: async () => idOf(await jsonOf(pool, "POST", "/threads", {}), "thread_id"),
    createRun: async (threadId, graphId, createThread) =>
      idOf(
        await jsonOf(pool, "POST", `/threads/${threadId}/runs`, {
          assistant_id: graphId,
          input: runInput(),
          ...(createThread ? { if_not_exists: "create" } : {}),
        }),
        "run_id",
      ),
    join: (threadId, runId) => jsonOf(pool, "GET", `/threads/${threadId}/runs/${runId}/join`),
  };
}

/** `users` simulated users against `url`: SDK clients, or one keep-alive connection each. */
export function benchClients(kind: ClientKind, url: string, users: number): BenchClients {
  if (kind === "sdk") {
    const clients = Array.from({ length: users }, () => sdkClient(url));
    return {
      forUser: (index) => clients[index % clients.length] ?? sdkClient(url),
      close: async () => {},
    };
  }
  const pool = new Pool(url, { connections: users, pipelining: 1 });
  const client = httpClient(pool);
  return { forUser: () => client, close: () => pool.close() };
}

/** The `--client` option of the benches (default `http`). */
export function parseClientKind(value: string | undefined): ClientKind {
  if (value === undefined) return "http";
  if (!CLIENT_KINDS.includes(value as ClientKind)) {
    throw new Error(`--client takes ${CLIENT_KINDS.join(" or ")}, not "${value}"`);
  }
  return value as ClientKind;
}

/** How a bench's header names the client it drove the servers with. */
export function describeClient(kind: ClientKind): string {
  return kind === "http"
    ? "plain HTTP/1.1 (undici Pool, one keep-alive connection per simulated user), retries off, loopback; thread create: autocannon"
    : "@langchain/langgraph-sdk, one Client per simulated user, retries off, loopback HTTP";
}
