// Folding a run's stream into the chat's state: message chunks (messages-tuple) and interrupts.
import { textOf, type WireMessage } from "../components/messages.js";

/** An interrupt waiting for a resume value. */
export interface PendingInterrupt {
  value: unknown;
  id?: string;
}

/** Adds a streamed message or chunk to the list: chunks of one id concatenate, full messages replace. */
export function applyMessage(list: WireMessage[], incoming: WireMessage): WireMessage[] {
  const i = incoming.id ? list.findIndex((m) => m.id === incoming.id) : -1;
  if (i < 0) return [...list, incoming];
  const previous = list[i] as WireMessage;
  const merged: WireMessage = incoming.type.endsWith("Chunk")
    ? {
        ...previous,
        content: textOf(previous.content) + textOf(incoming.content),
        tool_calls: incoming.tool_calls?.length
          ? mergeCalls(previous.tool_calls, incoming.tool_calls)
          : previous.tool_calls,
      }
    : incoming;
  return list.map((m, j) => (j === i ? merged : m));
}

function mergeCalls(a: WireMessage["tool_calls"] = [], b: NonNullable<WireMessage["tool_calls"]>) {
  const named = b.filter((c) => c.name);
  return named.length > 0 ? [...a.filter((c) => !named.some((n) => n.id && n.id === c.id)), ...named] : a;
}

/** The interrupts of an `updates` event (`{"__interrupt__": [...]}`), if any. */
export function interruptsOf(update: unknown): PendingInterrupt[] {
  const raw = (update as { __interrupt__?: unknown } | null)?.__interrupt__;
  return Array.isArray(raw)
    ? raw.map((i) => ({ value: (i as { value?: unknown }).value, id: (i as { id?: string }).id }))
    : [];
}

/** What a resume form's text means: JSON when it parses, else the text itself. */
export function resumeValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
