// Folding a run's stream into the chat's state: message chunks (messages-tuple) and interrupts.
import { textOf, type WireMessage } from "../components/messages.js";
import type { JsonSchema } from "../components/typed-form.js";

/** An interrupt waiting for a resume value. */
export interface PendingInterrupt {
  value: unknown;
  id?: string;
  /** What the resume value must be (`interrupt(value, {responseSchema})`, LangGraph JS 1.4+). */
  responseSchema?: JsonSchema;
}

/**
 * Adds a streamed message or chunk to the list. Every message of an id already shown is a further
 * chunk of it and concatenates, whatever its `type` says: the JS server's chunks say "ai", the
 * Python server's "AIMessageChunk" (the official SDK's useStream folds them the same way).
 * LangGraph sends a message that was streamed token by token only as its chunks, never again whole.
 */
export function applyMessage(list: WireMessage[], incoming: WireMessage): WireMessage[] {
  const i = incoming.id ? list.findIndex((m) => m.id === incoming.id) : -1;
  if (i < 0) return [...list, incoming];
  const previous = list[i] as WireMessage;
  const chunks = mergeCallChunks(previous.tool_call_chunks, incoming.tool_call_chunks);
  const merged: WireMessage = {
    ...previous,
    content: textOf(previous.content) + textOf(incoming.content),
    tool_calls: incoming.tool_calls?.length
      ? mergeCalls(previous.tool_calls, incoming.tool_calls)
      : previous.tool_calls,
    ...(chunks ? { tool_call_chunks: chunks } : {}),
  };
  if (chunks) merged.tool_calls = callsFromChunks(chunks, merged.tool_calls);
  return list.map((m, j) => (j === i ? merged : m));
}

function mergeCalls(a: WireMessage["tool_calls"] = [], b: NonNullable<WireMessage["tool_calls"]>) {
  const named = b.filter((c) => c.name);
  return named.length > 0 ? [...a.filter((c) => !named.some((n) => n.id && n.id === c.id)), ...named] : a;
}

type CallChunk = NonNullable<WireMessage["tool_call_chunks"]>[number];

/** Tool-call chunks of one index concatenate (the name and id come first, the arguments in pieces). */
function mergeCallChunks(a: CallChunk[] | undefined, b: CallChunk[] | undefined): CallChunk[] | undefined {
  if (!b?.length) return a;
  const out = [...(a ?? [])];
  for (const c of b) {
    const k = out.findIndex((o) => o.index === c.index);
    const o = k < 0 ? undefined : out[k];
    if (!o) out.push({ ...c });
    else out[k] = { ...o, name: o.name || c.name, id: o.id || c.id, args: (o.args ?? "") + (c.args ?? "") };
  }
  return out;
}

/** The calls so far: each chunk's name with its arguments parsed once they are whole JSON. */
function callsFromChunks(
  chunks: CallChunk[],
  calls: WireMessage["tool_calls"] = [],
): WireMessage["tool_calls"] {
  const named = chunks.filter((c) => c.name);
  if (named.length === 0) return calls;
  return named.map((c) => ({
    ...(c.id ? { id: c.id } : {}),
    name: c.name ?? "",
    args: parsedOr(c.args ?? ""),
  }));
}

function parsedOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The interrupts of an `updates` event (`{"__interrupt__": [...]}`), if any. */
export function interruptsOf(update: unknown): PendingInterrupt[] {
  const raw = (update as { __interrupt__?: unknown } | null)?.__interrupt__;
  return Array.isArray(raw)
    ? raw.map((i) => pendingOf(i as { value?: unknown; id?: string; response_schema?: unknown }))
    : [];
}

/** An interrupt as the server sends it (in a stream's `__interrupt__` or a state's tasks). */
export function pendingOf(raw: {
  value?: unknown;
  id?: string | undefined;
  response_schema?: unknown;
}): PendingInterrupt {
  return {
    value: raw.value,
    ...(raw.id ? { id: raw.id } : {}),
    ...(raw.response_schema && typeof raw.response_schema === "object"
      ? { responseSchema: raw.response_schema as JsonSchema }
      : {}),
  };
}

/** What a resume form's text means: JSON when it parses, else the text itself. */
export function resumeValue(text: string): unknown {
  return parsedOr(text);
}
