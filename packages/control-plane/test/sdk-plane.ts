// What the `langsmith` SDK tests share: a listening control plane per storage (SQLite always,
// PostgreSQL when DATABASE_URL is set), a client on it, raw admin calls and paging helpers.
import type { AddressInfo } from "node:net";
import { after, before } from "node:test";
import { Client } from "langsmith";
import { ADMIN_KEY, openPlane, type TestPlane } from "./helpers.js";
import { TEST_DATABASE_URL } from "./postgres.js";

/** The storages every SDK test runs on. */
export const STORAGES: Array<"sqlite" | "postgres"> = TEST_DATABASE_URL ? ["sqlite", "postgres"] : ["sqlite"];

export interface SdkPlane {
  plane: TestPlane;
  /** The control plane's root URL (no trailing slash). */
  base: string;
  close(): Promise<void>;
}

/** A control plane listening on an ephemeral port, its state in `storage`. */
export async function sdkPlane(storage: "sqlite" | "postgres"): Promise<SdkPlane> {
  const { plane, close } = await openPlane({}, storage);
  await plane.plane.app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = plane.plane.app.server.address() as AddressInfo;
  return { plane, base: `http://127.0.0.1:${port}`, close };
}

/** An SDK client at `apiUrl` with the admin key and no retries (a failure shows at once). */
export function sdkClient(apiUrl: string, extra: Record<string, unknown> = {}): Client {
  return new Client({ apiUrl, apiKey: ADMIN_KEY, callerOptions: { maxRetries: 0 }, ...extra });
}

/** A raw call to the plane's API with the admin key (what the SDK does not expose). */
export function adminCall(sp: SdkPlane, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${sp.base}${path}`, {
    method,
    headers: { "x-api-key": ADMIN_KEY, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

/** Matches the SDK's error for an HTTP `code` answer (for assert.rejects). */
export const sdkStatus =
  (code: number) =>
  (e: Error & { status?: number }): boolean =>
    e.status === code;

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/**
 * For a describe block: a plane on `storage` started before its tests and closed after them, an
 * admin SDK client on it and raw admin calls.
 */
export function useSdkPlane(storage: "sqlite" | "postgres"): {
  readonly sp: SdkPlane;
  readonly ls: Client;
  call(method: string, path: string, body?: unknown): Promise<Response>;
} {
  let started: { sp: SdkPlane; ls: Client } | undefined;
  before(async () => {
    const sp = await sdkPlane(storage);
    started = { sp, ls: sdkClient(sp.base) };
  });
  after(async () => started?.sp.close());
  const get = () => {
    if (!started) throw new Error("the plane starts before the suite's tests");
    return started;
  };
  return {
    get sp() {
      return get().sp;
    },
    get ls() {
      return get().ls;
    },
    call: (method, path, body) => adminCall(get().sp, method, path, body),
  };
}
