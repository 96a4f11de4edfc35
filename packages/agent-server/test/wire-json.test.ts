import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { toWire } from "../src/domain/serialize.js";
import { WireJson } from "../src/domain/wire-json.js";

const expected = (value: unknown) => JSON.stringify(toWire(value) ?? null);

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

function values() {
  const messages = [
    new HumanMessage({ content: 'hi "there" \u2028', id: "h" }),
    new AIMessage({
      content: [{ type: "text", text: "multi" }],
      id: "a",
      tool_calls: [{ name: "t", args: { x: 1 }, id: "c", type: "tool_call" }],
      usage_metadata: { input_tokens: 1, output_tokens: 2, total_tokens: 3 },
    }),
    new ToolMessage({ content: "42", tool_call_id: "c", name: "t", id: "tm" }),
  ];
  return {
    messages,
    when: new Date("2026-01-01T00:00:00Z"),
    skipped: undefined,
    fn: () => 1,
    big: 10n,
    nan: Number.NaN,
    "2": "integer-like key",
    list: [1, undefined, () => 2, null, "s", [messages[0]]],
    point: new Point(1, 2),
    bare: Object.assign(Object.create(null) as object, { a: 1 }),
    nested: { deeper: { message: messages[2], empty: [], obj: {} } },
  };
}

describe("WireJson", () => {
  it("writes the text JSON.stringify(toWire(value)) writes, for values of every kind", () => {
    const wire = new WireJson();
    const all = values();
    for (const value of [all, all.messages, all.list, "plain", 3, null, undefined, () => 0, all.point]) {
      assert.equal(wire.stringify(value), expected(value));
    }
    // Again, from the memo.
    assert.equal(wire.stringify(all), expected(all));
  });

  it("writes a message's new content or id when graph code changed it in place", () => {
    const wire = new WireJson();
    const all = values();
    wire.stringify(all);
    (all.messages[0] as HumanMessage).content = "edited";
    (all.messages[2] as ToolMessage).id = "tm-2";
    const text = wire.stringify(all);
    assert.equal(text, expected(all));
    assert.match(text, /edited/);
    assert.match(text, /tm-2/);
  });
});
