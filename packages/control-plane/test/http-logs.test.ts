// Revision logs: v2 and v1 endpoints, paging with cursors, filters, tenant isolation.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { usePlane } from "./helpers.js";

const plane = usePlane();

async function deploymentWithLogs(lines: number) {
  const created = await plane().call({
    method: "POST",
    url: "/v2/deployments",
    payload: {
      name: `logs-${Date.now()}-${lines}`,
      source: "external_container",
      source_config: {},
      source_revision_config: { image_uri: "docker.io/library/nginx:1.27" },
      secrets: [],
    },
  });
  const deployment = created.json<{ id: string; latest_revision_id: string }>();
  const tenantId =
    (
      await plane().plane.storage.deployments.get(
        created.json<{ tenant_id: string }>().tenant_id,
        deployment.id,
      )
    )?.tenant_id ?? "";
  await plane().plane.storage.logs.append(
    Array.from({ length: lines }, (_, i) => ({
      tenant_id: tenantId,
      deployment_id: deployment.id,
      revision_id: deployment.latest_revision_id,
      type: "build" as const,
      timestamp: 1_700_000_000_000 + i,
      level: i % 2 === 0 ? "INFO" : "ERROR",
      message: `line ${i}`,
    })),
  );
  return deployment;
}

describe("revision logs", () => {
  it("pages with next_offset in both orders, filters by level and text", async () => {
    const d = await deploymentWithLogs(7);
    const url = `/v1/projects/${d.id}/revisions/${d.latest_revision_id}/build_logs`;
    const first = (await plane().call({ method: "POST", url, payload: { order: "asc", limit: 3 } })).json<{
      logs: Array<{ message: string }>;
      next_offset: string | null;
    }>();
    assert.deepEqual(
      first.logs.map((l) => l.message),
      ["line 0", "line 1", "line 2"],
    );
    const second = (
      await plane().call({
        method: "POST",
        url,
        payload: { order: "asc", limit: 3, offset: first.next_offset },
      })
    ).json<{ logs: Array<{ message: string }> }>();
    assert.deepEqual(
      second.logs.map((l) => l.message),
      ["line 3", "line 4", "line 5"],
    );
    const newest = (await plane().call({ method: "POST", url, payload: { order: "desc", limit: 2 } })).json<{
      logs: Array<{ message: string }>;
    }>();
    assert.deepEqual(
      newest.logs.map((l) => l.message),
      ["line 6", "line 5"],
    );
    const errors = await plane().call({
      method: "GET",
      url: `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}/logs?type=build&level=ERROR&query=line%203`,
    });
    assert.deepEqual(
      errors.json<{ logs: Array<{ message: string }> }>().logs.map((l) => l.message),
      ["line 3"],
    );
    const all = await plane().call({
      method: "GET",
      url: `/v2/deployment-logs?deployment_id=${d.id}&log_type=BUILD&page_size=100`,
    });
    assert.equal(all.json<{ items: unknown[]; next_cursor: string | null }>().items.length, 7);
    assert.equal(all.json<{ next_cursor: string | null }>().next_cursor, null);
  });

  it("is 404 for another tenant and 422 for a bad cursor or type", async () => {
    const d = await deploymentWithLogs(1);
    const other = await plane().addTenant();
    const foreign = await plane().call({
      method: "POST",
      url: `/v1/projects/${d.id}/revisions/${d.latest_revision_id}/build_logs`,
      headers: { "x-api-key": other.key },
      payload: {},
    });
    assert.equal(foreign.statusCode, 404);
    const badCursor = await plane().call({
      method: "POST",
      url: `/v1/projects/${d.id}/revisions/${d.latest_revision_id}/build_logs`,
      payload: { offset: "drop table" },
    });
    assert.equal(badCursor.statusCode, 422);
    const noType = await plane().call({
      method: "GET",
      url: `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}/logs`,
    });
    assert.equal(noType.statusCode, 422);
  });
});
