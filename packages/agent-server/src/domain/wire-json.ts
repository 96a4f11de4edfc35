import { type BaseMessage, isBaseMessage } from "@langchain/core/messages";
import { messageToDict, toWire } from "./serialize.js";

/**
 * `JSON.stringify(toWire(value) ?? null)`, the same text, with each message's part kept per
 * message object. Why: a thread's values are stored once per run, and on a chat thread they are
 * mostly the same messages as last run (the checkpointer hands the same message objects back,
 * CheckpointSerializer); converting and writing every one of them again was the part of storing
 * them that grew with the thread (issue 31). A message's JSON is reused while its id and content
 * are the ones it was written with, the rule of the checkpoint serializer's memo (graph code that
 * edits a message in place most likely edits those; LangGraph treats state as immutable), so the
 * values stored and the checkpoint written from the same objects agree.
 *
 * One instance per process (the composition root's); the memo holds nothing a message outlives.
 */
export class WireJson {
  private readonly memo = new WeakMap<object, { json: string; id: unknown; content: unknown }>();

  stringify(value: unknown): string {
    return this.write(value) ?? "null";
  }

  /** The JSON of `toWire(value)`, or undefined where toWire drops the value. */
  private write(value: unknown): string | undefined {
    if (value === null || typeof value !== "object") {
      const wire = toWire(value);
      return wire === undefined ? undefined : JSON.stringify(wire);
    }
    if (Array.isArray(value)) {
      const parts: string[] = new Array(value.length);
      for (let i = 0; i < value.length; i += 1) parts[i] = this.write(value[i]) ?? "null";
      return `[${parts.join(",")}]`;
    }
    if (isBaseMessage(value)) return this.message(value);
    const proto = Object.getPrototypeOf(value);
    // Dates and class instances: what toWire makes of them (their toJSON, their own fields).
    if (proto !== Object.prototype && proto !== null) return JSON.stringify(toWire(value));
    const parts: string[] = [];
    for (const [key, item] of Object.entries(value)) {
      const json = this.write(item);
      if (json !== undefined) parts.push(`${JSON.stringify(key)}:${json}`);
    }
    return `{${parts.join(",")}}`;
  }

  private message(message: BaseMessage): string {
    const { id, content } = message;
    const kept = this.memo.get(message);
    if (kept && kept.id === id && kept.content === content) return kept.json;
    const json = JSON.stringify(messageToDict(message));
    this.memo.set(message, { json, id, content });
    return json;
  }
}
