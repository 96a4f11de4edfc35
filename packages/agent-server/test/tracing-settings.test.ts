// Which tracer a run gets (issue 30 item 4): the agent server's own when it can send what the
// SDK's tracer would, LangChain's when the environment asks for something it does not do.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chooseTracer } from "../src/tracing/settings.js";

const BERTH_DEPLOYMENT = {
  LANGSMITH_TRACING: "true",
  LANGCHAIN_CALLBACKS_BACKGROUND: "true",
  LANGSMITH_ENDPOINT: "http://127.0.0.1:9000/",
  LANGSMITH_API_KEY: "secret-key",
  LANGSMITH_DISABLE_MULTIPART_STREAMING: "true",
  LANGSMITH_PROJECT: "my-agent",
  LANGSMITH_TENANT_ID: "tenant-1",
  LANGSMITH_HOST_PROJECT_ID: "dep-1",
  LANGSMITH_HOST_REVISION_ID: "rev-1",
  LANGSMITH_DEPLOYMENT_NAME: "my-agent",
  GITHUB_SHA: "abc123",
  PATH: "/usr/bin",
};

describe("chooseTracer", () => {
  it("is off unless a tracing switch is 'true'", () => {
    assert.deepEqual(chooseTracer({ LANGSMITH_TRACING: "false", LANGSMITH_API_KEY: "k" }), { kind: "off" });
    assert.deepEqual(chooseTracer({}), { kind: "off" });
    assert.equal(chooseTracer({ LANGCHAIN_TRACING_V2: "TRUE" }).kind, "lean");
  });

  it("a deployment's environment: the agent server's tracer, with the SDK's endpoint, key, project and metadata", () => {
    const choice = chooseTracer(BERTH_DEPLOYMENT);
    assert.equal(choice.kind, "lean");
    if (choice.kind !== "lean") return;
    assert.equal(choice.settings.endpoint, "http://127.0.0.1:9000");
    assert.equal(choice.settings.apiKey, "secret-key");
    assert.equal(choice.settings.project, "my-agent");
    assert.equal(choice.settings.workspaceId, null);
    // What getLangSmithEnvVarsMetadata() gives for the same environment: no key, endpoint or project.
    assert.deepEqual(choice.settings.envMetadata, {
      LANGSMITH_TRACING: "true",
      LANGCHAIN_CALLBACKS_BACKGROUND: "true",
      LANGSMITH_DISABLE_MULTIPART_STREAMING: "true",
      LANGSMITH_TENANT_ID: "tenant-1",
      LANGSMITH_HOST_PROJECT_ID: "dep-1",
      LANGSMITH_HOST_REVISION_ID: "rev-1",
      LANGSMITH_DEPLOYMENT_NAME: "my-agent",
    });
    assert.deepEqual(choice.settings.releaseShas, { GITHUB_SHA: "abc123" });
  });

  it("the SDK's defaults and legacy names", () => {
    const choice = chooseTracer({
      LANGCHAIN_TRACING_V2: "true",
      LANGCHAIN_API_KEY: "legacy",
      LANGCHAIN_SESSION: "old-project",
      LANGSMITH_REVISION_ID: "r9",
      LANGSMITH_WORKSPACE_ID: "ws-1",
    });
    assert.equal(choice.kind, "lean");
    if (choice.kind !== "lean") return;
    assert.equal(choice.settings.endpoint, "https://api.smith.langchain.com");
    assert.equal(choice.settings.apiKey, "legacy");
    assert.equal(choice.settings.project, "old-project");
    assert.equal(choice.settings.workspaceId, "ws-1");
    assert.equal(choice.settings.envMetadata.revision_id, "r9");
    assert.equal(choice.settings.envMetadata.LANGSMITH_REVISION_ID, undefined);
  });

  it("replicas, sampling, hidden payloads or any other SDK setting: LangChain's tracer, saying why", () => {
    for (const name of [
      "LANGSMITH_RUNS_ENDPOINTS",
      "LANGSMITH_TRACING_SAMPLING_RATE",
      "LANGSMITH_HIDE_INPUTS",
      "LANGSMITH_HIDE_OUTPUTS",
      "LANGSMITH_OTEL_ENABLED",
      "LANGCHAIN_SOMETHING_NEW",
    ]) {
      const choice = chooseTracer({ ...BERTH_DEPLOYMENT, [name]: "x" });
      assert.deepEqual(choice, { kind: "sdk", reason: `${name} set` }, name);
    }
    // Empty is unset.
    assert.equal(chooseTracer({ ...BERTH_DEPLOYMENT, LANGSMITH_RUNS_ENDPOINTS: "" }).kind, "lean");
  });

  it("BERTH_TRACER=sdk keeps LangChain's tracer", () => {
    assert.deepEqual(chooseTracer({ ...BERTH_DEPLOYMENT, BERTH_TRACER: "sdk" }), {
      kind: "sdk",
      reason: "BERTH_TRACER=sdk",
    });
  });
});
