import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { useOwnDepsServer } from "./own-deps-helpers.js";

type Schema = { properties?: Record<string, Record<string, unknown>>; required?: string[] };

/**
 * The JS server's project features (issue 10) on a project with its own node_modules
 * (test/fixtures/features-project): TypeScript-type and zod schemas, `http.app`, `http.disable_*`,
 * `http.configurable_headers`, `ui`, and start-up warnings.
 */
describe("project features of the official JS server (issue 10)", () => {
  const project = useOwnDepsServer("features");

  it("keeps withLangGraph metadata of the project's own zod copy in /schemas, like the official JS server (defect 1)", async () => {
    const schemas = await project.client().assistants.getSchemas("zod_state");
    const state = schemas.state_schema as Schema;
    assert.deepEqual(state.properties?.messages, { langgraph_type: "messages" });
    assert.equal(state.properties?.topic?.description, "What the conversation is about");
    const output = schemas.output_schema as Schema;
    assert.deepEqual(output.required, ["topic"]);
    assert.deepEqual((schemas.input_schema as Schema).properties?.messages, { langgraph_type: "messages" });
  });

  it("reads Annotation graphs' schemas from their TypeScript types, like the official JS server's parser", async () => {
    const schemas = await project.client().assistants.getSchemas("typed");
    const state = schemas.state_schema as Schema;
    assert.deepEqual(Object.keys(state.properties ?? {}).sort(), ["messages", "score", "topic"]);
    assert.deepEqual(state.properties?.topic, { type: "string" });
    assert.deepEqual(state.properties?.score, { type: "number" });
    assert.equal(state.properties?.messages?.type, "array");
    const config = schemas.config_schema as Schema;
    assert.deepEqual(config.properties?.model, { enum: ["large", "small"], type: "string" });
    assert.deepEqual(schemas.context_schema, schemas.config_schema);
  });

  it("gives subgraphs their own TypeScript-type schemas under /subgraphs, like the official JS server", async () => {
    const subgraphs = (await project.client().assistants.getSubgraphs("typed", { recurse: true })) as Record<
      string,
      { state_schema: Schema }
    >;
    assert.deepEqual(Object.keys(subgraphs), ["child"]);
    assert.deepEqual(subgraphs.child?.state_schema.properties, {
      notes: { type: "array", items: { type: "string" } },
    });
  });
});
