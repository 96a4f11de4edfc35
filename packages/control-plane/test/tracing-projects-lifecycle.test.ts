// The lifecycle of tracing projects: deleted with their traces; a deleted deployment's project kept
// (its name reusable by a new deployment, which takes it over) or removed; retention by age and size.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { externalBody, usePlane, waitFor } from "./helpers.js";
import { PREFIX, projectByName, rootRun, traceCount } from "./langsmith-ingest-helpers.js";

const plane = usePlane();

describe("tracing projects: lifecycle", () => {
  it("DELETE /v2/tracing-projects/{id} removes the project and its traces", async () => {
    const p = plane();
    const run = rootRun("doomed");
    await p.call({ method: "POST", url: `${PREFIX}/runs`, payload: run });
    await p.plane.traceQueue.settled();
    const project = await projectByName(p, "doomed");
    assert.equal(await traceCount(p, project.id), 1);
    const gone = await p.call({ method: "DELETE", url: `/v2/tracing-projects/${project.id}` });
    assert.equal(gone.statusCode, 204);
    assert.equal(await traceCount(p, project.id), -1);
    assert.equal((await p.call({ method: "GET", url: `${PREFIX}/runs/${run.id}` })).statusCode, 404);
    assert.equal(
      (await p.call({ method: "DELETE", url: `/v2/tracing-projects/${project.id}` })).statusCode,
      404,
    );
  });

  it("a deleted deployment's project stays (its name reusable by a new deployment) unless delete_tracing_project", async () => {
    const p = plane();
    const first = (
      await p.call({ method: "POST", url: "/v2/deployments", payload: externalBody("reborn") })
    ).json() as {
      id: string;
    };
    const project = await projectByName(p, "reborn");
    await p.call({ method: "POST", url: `${PREFIX}/runs`, payload: rootRun("reborn") });
    await p.plane.traceQueue.settled();
    assert.equal((await p.call({ method: "DELETE", url: `/v2/deployments/${first.id}` })).statusCode, 204);
    await waitFor(
      () => p.call({ method: "GET", url: `/v2/deployments/${first.id}` }),
      (r) => r.statusCode === 404,
    );
    const kept = await projectByName(p, "reborn");
    assert.equal(kept.id, project.id);
    assert.equal(kept.deployment_id, null);
    assert.equal(await traceCount(p, project.id), 1);

    // The name is free again: the new deployment takes the project over, traces and all.
    const second = await p.call({ method: "POST", url: "/v2/deployments", payload: externalBody("reborn") });
    assert.equal(second.statusCode, 201, second.body);
    const secondId = (second.json() as { id: string }).id;
    const adopted = await projectByName(p, "reborn");
    assert.equal(adopted.id, project.id);
    assert.equal(adopted.deployment_id, secondId);

    await p.call({ method: "DELETE", url: `/v2/deployments/${secondId}?delete_tracing_project=true` });
    await waitFor(
      () => p.call({ method: "GET", url: `/v2/tracing-projects/${project.id}` }),
      (r) => r.statusCode === 404,
    );
    assert.equal(await traceCount(p, project.id), -1);
  });

  it("retention: runs past the age limit and a project's oldest traces past its size go", async () => {
    const p = plane();
    const old = rootRun("aging", { start_time: new Date(Date.now() - 30 * 86_400_000).toISOString() });
    const young = rootRun("aging");
    await p.call({ method: "POST", url: `${PREFIX}/runs/batch`, payload: { post: [old, young] } });
    await p.plane.traceQueue.settled();
    const project = await projectByName(p, "aging");
    assert.equal(await traceCount(p, project.id), 2);
    await p.plane.tracing.sweep();
    // The default retention is 14 days.
    assert.equal(await traceCount(p, project.id), 1);
  });
});
