// Messages of traced runs read from the shapes tracers write (pages/trace-messages.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cost } from "../src/format.js";
import { conversationOf, messageOf } from "../src/pages/trace-messages.js";

const lc = (cls: string, kwargs: Record<string, unknown>) => ({
  lc: 1,
  type: "constructor",
  id: ["langchain_core", "messages", cls],
  kwargs,
});

describe("conversationOf", () => {
  it("reads LangChain's serialized messages in a graph's state, with tool calls and tool results", () => {
    const inputs = {
      messages: [
        lc("SystemMessage", { content: "Be brief." }),
        lc("HumanMessage", { content: "Weather in Lisbon?" }),
        lc("AIMessage", {
          content: "",
          tool_calls: [{ id: "call_1", name: "get_weather", args: { city: "Lisbon" } }],
        }),
        lc("ToolMessage", { content: "sunny", name: "get_weather", tool_call_id: "call_1" }),
        lc("AIMessageChunk", {
          content: [
            { type: "text", text: "It is " },
            { type: "text", text: "sunny." },
          ],
        }),
      ],
    };
    const messages = conversationOf(inputs);
    assert.deepEqual(
      messages?.map((m) => [m.role, m.text]),
      [
        ["system", "Be brief."],
        ["human", "Weather in Lisbon?"],
        ["ai", ""],
        ["tool", "sunny"],
        ["ai", "It is sunny."],
      ],
    );
    assert.deepEqual(messages?.[2]?.toolCalls, [
      { id: "call_1", name: "get_weather", args: { city: "Lisbon" } },
    ]);
    assert.equal(messages?.[3]?.toolCallId, "call_1");
    assert.equal(messages?.[3]?.name, "get_weather");
  });

  it("reads plain role dicts, type dicts, Python's {type,data}, OpenAI tool calls with JSON arguments", () => {
    assert.deepEqual(
      conversationOf([
        { role: "user", content: "hi" },
        { type: "ai", content: "hello" },
        { type: "human", data: { content: "again" } },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c", type: "function", function: { name: "add", arguments: '{"a":1}' } }],
        },
      ])?.map((m) => [m.role, m.text, m.toolCalls.map((c) => [c.name, c.args])]),
      [
        ["human", "hi", []],
        ["ai", "hello", []],
        ["human", "again", []],
        ["ai", "", [["add", { a: 1 }]]],
      ],
    );
  });

  it("reads a chat model's batched messages, its generations, OpenAI choices and a tool's output message", () => {
    assert.equal(conversationOf({ messages: [[lc("HumanMessage", { content: "q" })]] })?.[0]?.role, "human");
    const generations = { generations: [[{ text: "a", message: lc("AIMessageChunk", { content: "a" }) }]] };
    assert.deepEqual(
      conversationOf(generations)?.map((m) => [m.role, m.text]),
      [["ai", "a"]],
    );
    assert.deepEqual(
      conversationOf({ generations: [[{ text: "plain" }]] })?.map((m) => m.text),
      ["plain"],
    );
    const choices = { choices: [{ message: { role: "assistant", content: "ok" } }] };
    assert.deepEqual(
      conversationOf(choices)?.map((m) => [m.role, m.text]),
      [["ai", "ok"]],
    );
    const tool = { output: lc("ToolMessage", { content: "42", tool_call_id: "x", name: "calc" }) };
    assert.equal(conversationOf(tool)?.[0]?.role, "tool");
  });

  it("keeps non-text parts and Anthropic tool_use blocks; leaves what is not a conversation alone", () => {
    const [m] =
      conversationOf([
        {
          role: "assistant",
          content: [
            { type: "text", text: "Let me look." },
            { type: "tool_use", id: "t1", name: "search", input: { q: "x" } },
            { type: "image_url", image_url: { url: "data:" } },
          ],
        },
      ]) ?? [];
    assert.equal(m?.text, "Let me look.");
    assert.deepEqual(m?.toolCalls, [{ id: "t1", name: "search", args: { q: "x" } }]);
    assert.deepEqual(m?.parts, [{ type: "image_url", image_url: { url: "data:" } }]);
    assert.equal(conversationOf({ question: "x" }), null);
    assert.equal(conversationOf({ messages: [] }), null);
    assert.equal(conversationOf([{ role: "user", content: "a" }, { foo: 1 }]), null);
    assert.equal(conversationOf(null), null);
    assert.equal(messageOf(lc("UnknownThing", { content: "x" })), null);
    assert.equal(messageOf(lc("ChatMessage", { role: "assistant", content: "x" }))?.role, "ai");
  });
});

describe("cost", () => {
  it("formats USD from numbers or decimal text; nothing when absent", () => {
    assert.equal(cost(0.000123), "$0.00012");
    assert.equal(cost("0.0425"), "$0.0425");
    assert.equal(cost(3.5), "$3.50");
    assert.equal(cost(null), "");
    assert.equal(cost(undefined), "");
    assert.equal(cost("n/a"), "");
  });
});
