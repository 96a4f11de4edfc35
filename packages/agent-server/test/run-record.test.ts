import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Assistant } from "@berth-platform/schemas";
import { buildRunRecord, threadConfigAfterRun } from "../src/domain/run-record.js";

const assistant: Assistant = {
  assistant_id: "a-1",
  graph_id: "agent",
  config: { tags: ["from-assistant"], configurable: { model: "assistant", temperature: 0 } },
  context: {},
  metadata: {},
  name: "agent",
  description: null,
  version: 1,
  created_at: "",
  updated_at: "",
};

describe("buildRunRecord", () => {
  it("merges config assistant ← thread ← request and then sets the server's keys", () => {
    const run = buildRunRecord({
      runId: "r-1",
      threadId: "t-1",
      assistant,
      threadConfig: { configurable: { model: "thread", region: "eu" } },
      body: {
        assistant_id: "agent",
        input: { x: 1 },
        config: {
          recursion_limit: 5,
          configurable: { model: "request", run_id: "spoofed", thread_id: "spoofed" },
        },
      },
      caller: { userId: "" },
      defaultStrategy: "enqueue",
      temporary: false,
      nowMs: Date.parse("2026-01-01T00:00:00Z"),
    });
    const config = run.kwargs.config as Record<string, unknown>;
    assert.equal(config.recursion_limit, 5);
    assert.deepEqual(config.tags, ["from-assistant"]);
    assert.deepEqual(config.configurable, {
      model: "request",
      temperature: 0,
      region: "eu",
      langgraph_auth_user: null,
      langgraph_auth_user_id: "",
      langgraph_auth_permissions: [],
      run_id: "r-1",
      user_id: "",
      graph_id: "agent",
      thread_id: "t-1",
      assistant_id: "a-1",
      checkpoint_id: null,
    });
    assert.deepEqual(config.metadata, { created_by: "system" });
    assert.equal(run.multitask_strategy, "enqueue");
    assert.deepEqual(run.kwargs.stream_mode, ["values"]);
    assert.equal(run.created_at, "2026-01-01T00:00:00.000Z");
  });

  it("delays a run by after_seconds and keeps the requested strategy", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    const run = buildRunRecord({
      runId: "r",
      threadId: "t",
      assistant,
      threadConfig: {},
      body: {
        assistant_id: "agent",
        after_seconds: 2.5,
        multitask_strategy: "reject",
        stream_mode: "updates",
      },
      caller: { userId: "u" },
      defaultStrategy: "enqueue",
      temporary: false,
      nowMs: now,
    });
    assert.equal(run.available_at, now + 2500);
    assert.equal(run.multitask_strategy, "reject");
    assert.deepEqual(run.kwargs.stream_mode, ["updates"]);
  });
});

describe("buildRunRecord and the thread's config", () => {
  it("takes only the thread's configurable, not its other keys (an earlier run's recursion_limit)", () => {
    const run = buildRunRecord({
      runId: "r-2",
      threadId: "t-1",
      assistant,
      threadConfig: { recursion_limit: 3, configurable: { region: "eu" } },
      body: { assistant_id: "agent", input: null },
      caller: { userId: "" },
      defaultStrategy: "enqueue",
      temporary: false,
      nowMs: 0,
    });
    const config = run.kwargs.config as { recursion_limit?: number; configurable: Record<string, unknown> };
    assert.equal(config.recursion_limit, undefined);
    assert.equal(config.configurable.region, "eu");
  });
});

describe("threadConfigAfterRun", () => {
  it("records assistant ← thread ← request config, configurable merged, without the server's auth keys", () => {
    const config = threadConfigAfterRun(
      assistant,
      { recursion_limit: 9, configurable: { model: "thread", region: "eu" } },
      { tags: ["req"], configurable: { model: "request", langgraph_auth_user_id: "mallory" } },
    );
    assert.deepEqual(config, {
      tags: ["req"],
      recursion_limit: 9,
      configurable: { model: "request", temperature: 0, region: "eu" },
    });
  });
});
