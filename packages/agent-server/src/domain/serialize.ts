import { type BaseMessage, isBaseMessage } from "@langchain/core/messages";

/** A LangChain message as the Agent Server API shows it (the Python `message.dict()` shape). */
export function messageToDict(message: BaseMessage): Record<string, unknown> {
  const type = message.getType();
  const m = message as BaseMessage & Record<string, unknown>;
  const dict: Record<string, unknown> = {
    content: toWire(message.content),
    additional_kwargs: toWire(message.additional_kwargs ?? {}),
    response_metadata: toWire(message.response_metadata ?? {}),
    type,
    name: message.name ?? null,
    id: message.id ?? null,
  };
  if (type === "human" || type === "ai") dict.example = Boolean(m.example);
  if (type === "ai") {
    dict.tool_calls = toWire(m.tool_calls ?? []);
    dict.invalid_tool_calls = toWire(m.invalid_tool_calls ?? []);
    dict.usage_metadata = toWire(m.usage_metadata ?? null);
  }
  if (type === "tool") {
    dict.tool_call_id = m.tool_call_id ?? null;
    dict.artifact = toWire(m.artifact ?? null);
    dict.status = m.status ?? "success";
  }
  return dict;
}

/**
 * Converts graph values to plain JSON for the API and storage: messages become dicts, dates ISO
 * strings, class instances their own fields; undefined object fields are dropped.
 */
export function toWire(value: unknown): unknown {
  if (value === null || typeof value !== "object") {
    if (typeof value === "bigint") return value.toString();
    if (typeof value === "function" || typeof value === "symbol") return undefined;
    return value;
  }
  if (Array.isArray(value)) return value.map((item) => toWire(item) ?? null);
  if (isBaseMessage(value)) return messageToDict(value);
  if (value instanceof Date) return value.toISOString();
  const proto = Object.getPrototypeOf(value);
  if (
    proto !== Object.prototype &&
    proto !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  ) {
    return toWire((value as { toJSON(): unknown }).toJSON());
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const converted = toWire(item);
    if (converted !== undefined) out[key] = converted;
  }
  return out;
}
