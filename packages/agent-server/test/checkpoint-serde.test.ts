import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { DeltaSnapshot, JsonPlusSerializer } from "@langchain/langgraph-checkpoint";
import { CheckpointSerializer } from "../src/storage/checkpoint-serde.js";

const official = new JsonPlusSerializer();
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

function conversation(turns: number) {
  const messages = [];
  for (let i = 0; i < turns; i += 1) {
    messages.push(new HumanMessage({ content: `What is ${i} + 1?`, id: `h${i}` }));
    messages.push(
      new AIMessage({
        content: "",
        id: `a${i}`,
        tool_calls: [
          { name: "calculator", args: { expression: `${i} + 1` }, id: `c${i}`, type: "tool_call" },
        ],
        usage_metadata: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
      }),
    );
    messages.push(
      new ToolMessage({ content: String(i + 1), tool_call_id: `c${i}`, name: "calculator", id: `t${i}` }),
    );
  }
  return messages;
}

function checkpoint(messages: unknown[]) {
  return {
    v: 4,
    id: "1ef-abc",
    ts: "2026-11-27T08:00:00.000Z",
    channel_values: {
      messages,
      "branch:to:agent": null,
      nothing: undefined,
      tags: new Set(["a", "b"]),
      lookup: new Map([["k", 1]]),
      when: new Date("2026-01-01T00:00:00Z"),
      pattern: /ab+c/gi,
      bytes: new Uint8Array([1, 2, 255]),
      delta: new DeltaSnapshot([1, 2]),
      nested: { deeper: { list: [new HumanMessage({ content: "deep", id: "d" })] } },
    },
    channel_versions: { messages: 3, __start__: 2 },
    versions_seen: { agent: { messages: 2 } },
  };
}

describe("CheckpointSerializer", () => {
  it("writes the same bytes as LangGraph's JsonPlusSerializer, for a whole checkpoint and for a list", async () => {
    const ours = new CheckpointSerializer();
    const value = checkpoint(conversation(5));
    for (const data of [value, value.channel_values.messages, { note: "no messages", n: 1 }, "plain"]) {
      const [typeA, a] = await official.dumpsTyped(data);
      const [typeB, b] = await ours.dumpsTyped(data);
      assert.equal(typeB, typeA);
      assert.equal(text(b), text(a));
    }
    // A second save of the same objects (the memo) writes the same again.
    const [, again] = await ours.dumpsTyped(value);
    assert.equal(text(again), text((await official.dumpsTyped(value))[1]));
  });

  it("writes a message's new content and id when graph code changed them in place", async () => {
    const ours = new CheckpointSerializer();
    const messages = conversation(1);
    await ours.dumpsTyped({ messages });
    const first = messages[0] as HumanMessage;
    first.content = "changed";
    first.id = "h-new";
    const [, bytes] = await ours.dumpsTyped({ messages });
    assert.equal(text(bytes), text((await official.dumpsTyped({ messages }))[1]));
    assert.match(text(bytes), /changed/);
  });

  it("reads back what the official reader reads, messages as message instances", async () => {
    const ours = new CheckpointSerializer();
    const [type, bytes] = await official.dumpsTyped(checkpoint(conversation(3)));
    const expected = (await official.loadsTyped(type, bytes)) as { channel_values: Record<string, unknown> };
    const actual = (await ours.loadsTyped(type, bytes)) as { channel_values: Record<string, unknown> };
    assert.deepEqual(actual, expected);
    const messages = actual.channel_values.messages as unknown[];
    assert.ok(messages[0] instanceof HumanMessage);
    assert.ok(messages[1] instanceof AIMessage);
    assert.ok(messages[2] instanceof ToolMessage);
    assert.deepEqual((messages[1] as AIMessage).tool_calls?.[0]?.args, { expression: "0 + 1" });
    assert.ok(actual.channel_values.tags instanceof Set);
    assert.ok(actual.channel_values.delta instanceof DeltaSnapshot);
    assert.ok(Object.hasOwn(actual.channel_values, "nothing"));
    assert.equal(actual.channel_values.nothing, undefined);
    // A Set holding messages takes the official reader's path; the result is the same.
    const [t2, b2] = await official.dumpsTyped({
      held: new Set([new HumanMessage({ content: "x", id: "x" })]),
    });
    assert.deepEqual(await ours.loadsTyped(t2, b2), await official.loadsTyped(t2, b2));
  });

  it("saves messages it read as the JSON they were read from, which reads back to the same state", async () => {
    const ours = new CheckpointSerializer();
    const [type, stored] = await official.dumpsTyped(checkpoint(conversation(4)));
    const read = (await ours.loadsTyped(type, stored)) as { channel_values: { messages: unknown[] } };
    read.channel_values.messages.push(new HumanMessage({ content: "next turn", id: "n" }));
    const [, ourBytes] = await ours.dumpsTyped(read);
    const [, officialBytes] = await official.dumpsTyped(read);
    assert.deepEqual(
      await official.loadsTyped(type, ourBytes),
      await official.loadsTyped(type, officialBytes),
    );
    assert.match(text(ourBytes), /next turn/);
  });

  it("reuses a message read before from the same stored JSON, unless its id or content changed since", async () => {
    const ours = new CheckpointSerializer();
    const [type, stored] = await official.dumpsTyped({ messages: conversation(2) });
    const first = (await ours.loadsTyped(type, stored)) as { messages: HumanMessage[] };
    const second = (await ours.loadsTyped(type, stored)) as { messages: HumanMessage[] };
    assert.equal(second.messages[0], first.messages[0]);
    assert.equal(second.messages[4], first.messages[4]);
    (first.messages[0] as HumanMessage).content = "edited in place";
    const third = (await ours.loadsTyped(type, stored)) as { messages: HumanMessage[] };
    assert.notEqual(third.messages[0], first.messages[0]);
    assert.equal(third.messages[0]?.content, "What is 0 + 1?");
    assert.ok(third.messages[0] instanceof HumanMessage);
    assert.deepEqual(third, await official.loadsTyped(type, stored));
  });

  it("reads back a thread's last write with the very messages written, unless one changed since", async () => {
    const ours = new CheckpointSerializer();
    const value = checkpoint(conversation(3));
    const [type, bytes] = await ours.dumpsTypedFor("thread-1", value);
    const [, officialBytes] = await official.dumpsTyped(value);
    assert.equal(text(bytes), text(officialBytes));
    const expected = await official.loadsTyped(type, bytes);
    const read = (await ours.loadsTyped(type, bytes)) as { channel_values: { messages: unknown[] } };
    assert.deepEqual(read, expected);
    assert.equal(read.channel_values.messages[4], value.channel_values.messages[4]);
    // The rest is parsed afresh: editing it does not reach the next read.
    (read.channel_values as Record<string, unknown>).when = "edited";
    const again = (await ours.loadsTyped(type, bytes)) as { channel_values: Record<string, unknown> };
    assert.deepEqual(again.channel_values.when, (expected as typeof again).channel_values.when);
    // A message edited in place: the bytes are read, not the edited message handed out.
    (value.channel_values.messages[0] as HumanMessage).content = "edited";
    const fresh = (await ours.loadsTyped(type, bytes)) as { channel_values: { messages: HumanMessage[] } };
    assert.equal(fresh.channel_values.messages[0]?.content, "What is 0 + 1?");
    // A newer write for the same thread replaces the entry; the old bytes are then read normally.
    await ours.dumpsTypedFor("thread-1", checkpoint(conversation(4)));
    assert.deepEqual(await ours.loadsTyped(type, bytes), await official.loadsTyped(type, bytes));
  });

  it("writes each step of a growing thread as the official writer does, whatever graph code did to the list", async () => {
    const ours = new CheckpointSerializer();
    const same = async (value: unknown, what: string) => {
      const [, bytes] = await ours.dumpsTypedFor("thread-1\u0000", value);
      assert.equal(text(bytes), text((await official.dumpsTyped(value))[1]), what);
      return bytes;
    };
    let messages: unknown[] = conversation(2);
    await same(checkpoint(messages), "first write");
    messages = [...messages, new HumanMessage({ content: "next", id: "n1" })];
    await same(checkpoint(messages), "a message appended (the reducer's new list)");
    await same(checkpoint([...messages]), "nothing new");
    (messages[1] as AIMessage).content = "edited in place";
    await same(checkpoint([...messages, new HumanMessage({ content: "n2", id: "n2" })]), "an edit in place");
    messages = [messages[0], ...messages.slice(2)];
    await same(checkpoint(messages), "a message removed");
    messages = [new HumanMessage({ content: "replaced", id: "r" }), ...messages.slice(1)];
    await same(checkpoint(messages), "the first replaced");
    const stored = await same(checkpoint([...messages, "not a message"]), "a list that is not only messages");
    // The last write reads back as the official reader reads it.
    assert.deepEqual(await ours.loadsTyped("json", stored), await official.loadsTyped("json", stored));
    const again = await same(
      { messages: [...messages, new AIMessage({ content: "last", id: "l" })] },
      "other shape",
    );
    const read = (await ours.loadsTyped("json", again)) as { messages: unknown[] };
    assert.deepEqual(read, await official.loadsTyped("json", again));
    // The reader gets its own list: changing it does not change the next read.
    read.messages.push("changed by the reader");
    assert.deepEqual(await ours.loadsTyped("json", again), await official.loadsTyped("json", again));
  });

  it("leaves an unknown or method-calling constructor record inert, as the official reader does", async () => {
    const ours = new CheckpointSerializer();
    const hostile = JSON.stringify({
      a: { lc: 2, type: "constructor", id: ["Function"], method: null, args: ["return 1"], kwargs: {} },
      b: { lc: 2, type: "constructor", id: ["Set"], method: "call", args: [[1]], kwargs: {} },
    });
    assert.deepEqual(await ours.loadsTyped("json", hostile), await official.loadsTyped("json", hostile));
  });
});
