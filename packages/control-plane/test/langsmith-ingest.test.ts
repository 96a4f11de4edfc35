// The LangSmith-compatible ingest API at its edges: per-deployment ingest keys, malformed and
// oversized payloads (4xx, never 500), a full queue (503, counted in /metrics), and another
// deployment's run ids (409, unchanged). Tracing projects' lifecycle: tracing-projects-lifecycle.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import { externalBody, openPlane, type TestPlane, usePlane } from "./helpers.js";
import { ingest, multipart, PREFIX, projectByName, rootRun, traceCount } from "./langsmith-ingest-helpers.js";

const LIMIT = 64 * 1024;

const plane = usePlane({ BERTH_TRACE_INGEST_LIMIT_BYTES: String(LIMIT) });

describe("trace ingest: keys", () => {
  it("a deployment's ingest key sends to its project; it cannot read, and a forged key is 401", async () => {
    const p = plane();
    const created = await p.call({
      method: "POST",
      url: "/v2/deployments",
      payload: externalBody("traced-agent"),
    });
    assert.equal(created.statusCode, 201, created.body);
    const deployment = created.json() as { id: string; tenant_id: string };
    const key = p.plane.ingestKeys.keyOf(deployment.tenant_id, deployment.id);
    const run = rootRun("traced-agent");
    const body = multipart([{ name: `post.${run.id}`, body: JSON.stringify(run) }]);
    const res = await ingest(p, body, {
      "x-api-key": key,
      "content-type": "multipart/form-data; boundary=b0undary",
    });
    assert.equal(res.statusCode, 202, res.body);
    await p.plane.traceQueue.settled();
    const project = await projectByName(p, "traced-agent");
    assert.equal(project.deployment_id, deployment.id);
    assert.equal(await traceCount(p, project.id), 1);

    const read = await p.raw({ method: "GET", url: `${PREFIX}/sessions`, headers: { "x-api-key": key } });
    assert.equal(read.statusCode, 403);
    const forged = `${key.slice(0, -4)}AAAA`;
    const denied = await p.raw({
      method: "POST",
      url: `${PREFIX}/runs/batch`,
      payload: { post: [rootRun("x")] },
      headers: { "x-api-key": forged },
    });
    assert.equal(denied.statusCode, 401);
    const none = await p.raw({ method: "POST", url: `${PREFIX}/runs/batch`, payload: { post: [] } });
    assert.equal(none.statusCode, 401);
  });

  it("another workspace's key sees none of this workspace's projects or runs (404)", async () => {
    const p = plane();
    const run = rootRun("private-project");
    assert.equal((await p.call({ method: "POST", url: `${PREFIX}/runs`, payload: run })).statusCode, 202);
    await p.plane.traceQueue.settled();
    const project = await projectByName(p, "private-project");
    const other = await p.addTenant();
    const headers = { "x-api-key": other.key };
    assert.equal(
      (await p.raw({ method: "GET", url: `${PREFIX}/sessions/${project.id}`, headers })).statusCode,
      404,
    );
    assert.equal((await p.raw({ method: "GET", url: `${PREFIX}/runs/${run.id}`, headers })).statusCode, 404);
    assert.equal(
      (await p.raw({ method: "GET", url: `/v2/tracing-projects/${project.id}/traces`, headers })).statusCode,
      404,
    );
    // The other workspace sending the same run id writes its own row, never this one.
    const clash = { ...run, name: "intruder", session_name: "theirs" };
    assert.equal(
      (await p.raw({ method: "POST", url: `${PREFIX}/runs`, payload: clash, headers })).statusCode,
      202,
    );
    await p.plane.traceQueue.settled();
    const mine = (await p.call({ method: "GET", url: `${PREFIX}/runs/${run.id}` })).json() as {
      name: string;
    };
    assert.equal(mine.name, "root");
  });
});

describe("trace ingest: malformed and oversized payloads are 4xx, never 500", () => {
  const mp = { "content-type": "multipart/form-data; boundary=b0undary" };
  const cases: Array<[string, () => Promise<{ statusCode: number; body: string }>, number]> = [
    [
      "multipart without a boundary",
      () => ingest(plane(), "x", { "content-type": "multipart/form-data" }),
      400,
    ],
    ["multipart that is not multipart", () => ingest(plane(), "garbage", mp), 400],
    [
      "an unclosed part",
      () => ingest(plane(), '--b0undary\r\nContent-Disposition: form-data; name="post.x"\r\n\r\n{}', mp),
      400,
    ],
    [
      "a part that is not JSON",
      () => ingest(plane(), multipart([{ name: `post.${randomUUID()}`, body: "{nope" }]), mp),
      400,
    ],
    [
      "a run id that is not a UUID",
      () => ingest(plane(), multipart([{ name: "post.abc", body: "{}" }]), mp),
      400,
    ],
    ["an unknown part", () => ingest(plane(), multipart([{ name: "delete.x", body: "{}" }]), mp), 400],
    [
      "a bad time",
      () => {
        const run = rootRun("p", { start_time: "yesterday" });
        return ingest(plane(), multipart([{ name: `post.${run.id}`, body: JSON.stringify(run) }]), mp);
      },
      400,
    ],
    [
      "a body over the limit",
      () =>
        ingest(
          plane(),
          multipart([{ name: `post.${randomUUID()}`, body: JSON.stringify({ x: "y".repeat(LIMIT) }) }]),
          mp,
        ),
      413,
    ],
    [
      "gzip that inflates past the limit",
      () =>
        ingest(
          plane(),
          gzipSync(
            multipart([{ name: `post.${randomUUID()}`, body: JSON.stringify({ x: "y".repeat(LIMIT * 4) }) }]),
          ),
          {
            ...mp,
            "content-encoding": "gzip",
          },
        ),
      413,
    ],
    [
      "a body that is not gzip",
      () => ingest(plane(), "not gzip", { ...mp, "content-encoding": "gzip" }),
      400,
    ],
    ["an unsupported encoding", () => ingest(plane(), "x", { ...mp, "content-encoding": "br" }), 415],
    [
      "JSON nested too deep",
      () =>
        ingest(
          plane(),
          `{"post":${"[".repeat(2000)}${"]".repeat(2000)}}`,
          { "content-type": "application/json" },
          "/runs/batch",
        ),
      400,
    ],
    [
      "a batch whose post is not a list",
      () => ingest(plane(), '{"post":{}}', { "content-type": "application/json" }, "/runs/batch"),
      400,
    ],
    [
      "a batch that is not JSON",
      () => ingest(plane(), "{", { "content-type": "application/json" }, "/runs/batch"),
      400,
    ],
    [
      "a run that is not an object",
      () => ingest(plane(), "[1]", { "content-type": "application/json" }, "/runs"),
      400,
    ],
    [
      "a PATCH of a run id that is not a UUID",
      () => plane().call({ method: "PATCH", url: `${PREFIX}/runs/nope`, payload: {} }),
      422,
    ],
    [
      "a session_id of no project",
      () =>
        ingest(
          plane(),
          JSON.stringify(rootRun("p", { session_id: randomUUID() })),
          { "content-type": "application/json" },
          "/runs",
        ),
      404,
    ],
    ["text/plain", () => ingest(plane(), "hello", { "content-type": "text/plain" }, "/runs"), 415],
  ];
  for (const [name, send, status] of cases) {
    it(`${name}: ${status}`, async () => {
      const res = await send();
      assert.equal(res.statusCode, status, res.body);
    });
  }

  it("a gzip multipart body within the limit lands", async () => {
    const p = plane();
    const run = rootRun("gzip-project");
    const body = gzipSync(multipart([{ name: `post.${run.id}`, body: JSON.stringify(run) }]));
    const res = await ingest(p, body, { ...mp, "content-encoding": "gzip" });
    assert.equal(res.statusCode, 202, res.body);
    await p.plane.traceQueue.settled();
    assert.equal(await traceCount(p, (await projectByName(p, "gzip-project")).id), 1);
  });
});

describe("trace ingest: a deployment's key writes only its own runs (issue 27)", () => {
  it("a PATCH, re-POST, batch or multipart write of another deployment's run id is a 409 and changes nothing", async () => {
    const p = plane();
    const deployments = [];
    for (const name of ["owner-agent", "intruder-agent"]) {
      const created = await p.call({ method: "POST", url: "/v2/deployments", payload: externalBody(name) });
      assert.equal(created.statusCode, 201, created.body);
      deployments.push(created.json() as { id: string; tenant_id: string });
    }
    const [owner, intruder] = deployments as [
      { id: string; tenant_id: string },
      { id: string; tenant_id: string },
    ];
    const ownerKey = p.plane.ingestKeys.keyOf(owner.tenant_id, owner.id);
    const intruderKey = p.plane.ingestKeys.keyOf(intruder.tenant_id, intruder.id);
    const run = rootRun("owner-agent", { inputs: { q: "mine" } });
    const posted = await p.raw({
      method: "POST",
      url: `${PREFIX}/runs`,
      payload: run,
      headers: { "x-api-key": ownerKey },
    });
    assert.equal(posted.statusCode, 202, posted.body);
    const own = rootRun("intruder-agent");
    const mp = "multipart/form-data; boundary=b0undary";
    const forged = {
      name: "rewritten",
      inputs: { q: "theirs" },
      outputs: { a: "x" },
      session_name: "intruder-agent",
    };
    const attempts: Array<[string, string, unknown, Record<string, string>?]> = [
      ["PATCH", `/runs/${run.id}`, { outputs: { a: "x" }, end_time: new Date().toISOString() }],
      ["POST", "/runs", { ...run, ...forged }],
      ["POST", "/runs/batch", { patch: [{ ...run, ...forged }] }],
      ["POST", "/runs/batch", { post: [{ ...run, ...forged }] }],
      [
        "POST",
        "/runs/multipart",
        multipart([
          { name: `post.${own.id}`, body: JSON.stringify(own) },
          { name: `patch.${run.id}`, body: JSON.stringify({ ...run, ...forged }) },
        ]),
        { "content-type": mp },
      ],
    ];
    for (const [method, path, payload, headers] of attempts) {
      const res = await p.raw({
        method: method as "POST" | "PATCH",
        url: `${PREFIX}${path}`,
        payload: payload as string,
        headers: { "x-api-key": intruderKey, ...(headers ?? {}) },
      });
      assert.equal(res.statusCode, 409, `${method} ${path}: ${res.body}`);
      assert.match((res.json() as { detail: string }).detail, new RegExp(run.id));
    }
    const stored = (await p.call({ method: "GET", url: `${PREFIX}/runs/${run.id}` })).json() as {
      name: string;
      inputs: unknown;
      outputs: unknown;
      session_id: string;
    };
    assert.equal(stored.name, "root");
    assert.deepEqual(stored.inputs, { q: "mine" });
    assert.equal(stored.outputs, null);
    assert.equal(stored.session_id, (await projectByName(p, "owner-agent")).id);
    // The intruder's own run of the same multipart request is written.
    assert.equal((await p.call({ method: "GET", url: `${PREFIX}/runs/${own.id}` })).statusCode, 200);
    // The owner completes its own run; the workspace's API key may change any run.
    const done = await p.raw({
      method: "PATCH",
      url: `${PREFIX}/runs/${run.id}`,
      payload: { outputs: { a: "mine" }, end_time: new Date().toISOString() },
      headers: { "x-api-key": ownerKey },
    });
    assert.equal(done.statusCode, 202, done.body);
    const byApiKey = await p.call({
      method: "PATCH",
      url: `${PREFIX}/runs/${run.id}`,
      payload: { tags: ["reviewed"] },
    });
    assert.equal(byApiKey.statusCode, 202, byApiKey.body);
    const final = (await p.call({ method: "GET", url: `${PREFIX}/runs/${run.id}` })).json() as {
      outputs: unknown;
      tags: string[];
    };
    assert.deepEqual(final.outputs, { a: "mine" });
    assert.deepEqual(final.tags, ["reviewed"]);
  });
});

describe("trace ingest: a full queue drops and counts, never blocks", () => {
  let small: TestPlane;
  let close: () => Promise<void>;
  before(async () => {
    ({ plane: small, close } = await openPlane({ BERTH_TRACE_QUEUE_RUNS: "3" }));
  });
  after(async () => close());

  it("operations past the queue's capacity are refused with 503 and Retry-After (the SDK sends again), counted in /metrics", async () => {
    const runs = Array.from({ length: 5 }, () => rootRun("flood"));
    const res = await small.call({ method: "POST", url: `${PREFIX}/runs/batch`, payload: { post: runs } });
    assert.equal(res.statusCode, 503, res.body);
    assert.equal(res.headers["retry-after"], "2");
    const fits = await small.call({
      method: "POST",
      url: `${PREFIX}/runs/batch`,
      payload: { post: runs.slice(0, 2) },
    });
    assert.deepEqual(fits.json(), { accepted: 2 });
    const metrics = (await small.raw({ method: "GET", url: "/metrics" })).body;
    assert.match(metrics, /berth_cp_trace_runs_total\{outcome="dropped_queue_full"\} 5/);
    assert.match(metrics, /berth_cp_trace_runs_total\{outcome="accepted"\} 2/);
  });
});
