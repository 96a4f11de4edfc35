// Requests of the LangSmith-compatible ingest suites: the API's prefix, multipart bodies, root runs,
// and reads of a project and its traces through /v2.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { TestPlane } from "./helpers.js";

export const PREFIX = "/langsmith-api";

export function multipart(parts: Array<{ name: string; body: string }>, boundary = "b0undary"): Buffer {
  const chunks = parts.map(
    (p) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\nContent-Type: application/json; length=${Buffer.byteLength(p.body)}\r\n\r\n${p.body}\r\n`,
  );
  return Buffer.from(`${chunks.join("")}--${boundary}--\r\n`);
}

export function rootRun(project: string, extra: Record<string, unknown> = {}) {
  const id = randomUUID();
  return {
    id,
    trace_id: id,
    dotted_order: `20260101T000000000000Z${id}`,
    name: "root",
    run_type: "chain",
    start_time: new Date().toISOString(),
    session_name: project,
    ...extra,
  };
}

export async function ingest(
  p: TestPlane,
  payload: Buffer | string,
  headers: Record<string, string>,
  path = "/runs/multipart",
) {
  return p.call({ method: "POST", url: `${PREFIX}${path}`, payload, headers });
}

export async function projectByName(
  p: TestPlane,
  name: string,
): Promise<{ id: string; deployment_id: string | null }> {
  const res = await p.call({ method: "GET", url: `/v2/tracing-projects?name=${encodeURIComponent(name)}` });
  const found = (res.json() as { resources: Array<{ id: string; deployment_id: string | null }> })
    .resources[0];
  assert.ok(found, `no project ${name}`);
  return found;
}

export async function traceCount(p: TestPlane, projectId: string): Promise<number> {
  const res = await p.call({ method: "GET", url: `/v2/tracing-projects/${projectId}/traces` });
  if (res.statusCode === 404) return -1;
  return (res.json() as { resources: unknown[] }).resources.length;
}
