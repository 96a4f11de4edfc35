// The agent server's API as OpenAPI (listed by the control plane's /docs under /agents/{id}):
// built from the routes' own schemas, every operation named.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { agentApiDocument } from "../src/openapi.js";

describe("agentApiDocument", () => {
  it("lists every route group with request schemas and a summary per operation", async () => {
    const document = await agentApiDocument();
    const paths = document.paths ?? {};
    for (const path of [
      "/assistants/search",
      "/threads/{thread_id}/state",
      "/runs/stream",
      "/store/items",
      "/runs/crons",
    ]) {
      assert.ok(paths[path], path);
    }
    const state = paths["/threads/{thread_id}/state"]?.post as {
      requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
    };
    assert.ok(
      state.requestBody?.content?.["application/json"]?.schema?.properties?.checkpoint_id,
      "the body's fields",
    );
    const unnamed = Object.entries(paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => !op.summary)
        .map(([method]) => `${method} ${path}`),
    );
    assert.deepEqual(unnamed, []);
  });
});
