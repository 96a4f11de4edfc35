import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { toWire } from "../src/domain/serialize.js";

describe("toWire", () => {
  it("turns messages into the API's dict shape, recursively", () => {
    const wire = toWire({
      messages: [
        new HumanMessage({ content: "hi", id: "h" }),
        new AIMessage({
          content: "",
          id: "a",
          tool_calls: [{ name: "t", args: { x: 1 }, id: "c", type: "tool_call" }],
          usage_metadata: { input_tokens: 1, output_tokens: 2, total_tokens: 3 },
        }),
        new ToolMessage({ content: "42", tool_call_id: "c", name: "t", id: "tm" }),
      ],
      when: new Date("2026-01-01T00:00:00Z"),
      skipped: undefined,
    }) as { messages: Array<Record<string, unknown>>; when: string };
    assert.deepEqual(wire.messages[0], {
      content: "hi",
      additional_kwargs: {},
      response_metadata: {},
      type: "human",
      name: null,
      id: "h",
      example: false,
    });
    assert.equal(wire.messages[1]?.type, "ai");
    assert.deepEqual(wire.messages[1]?.usage_metadata, {
      input_tokens: 1,
      output_tokens: 2,
      total_tokens: 3,
    });
    assert.deepEqual(wire.messages[1]?.tool_calls, [
      { name: "t", args: { x: 1 }, id: "c", type: "tool_call" },
    ]);
    assert.equal(wire.messages[2]?.tool_call_id, "c");
    assert.equal(wire.messages[2]?.status, "success");
    assert.equal(wire.when, "2026-01-01T00:00:00.000Z");
    assert.ok(!("skipped" in wire));
  });
});
