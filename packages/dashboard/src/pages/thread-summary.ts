// What identifies a thread in a list for a person: its first message and its graph, not its id.
import { textOf, type WireMessage } from "../components/messages.js";

/** The thread's first message as one line (cut at `max` characters), or null without messages. */
export function firstMessageOf(values: unknown, max = 80): string | null {
  const messages = (values as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return null;
  const first = messages.find((m): m is WireMessage => typeof m === "object" && m !== null && "content" in m);
  const text = first ? textOf(first.content).replace(/\s+/g, " ").trim() : "";
  if (!text) return null;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The graph a thread's runs used (runs record it in the thread's metadata), or null. */
export function graphOf(metadata: unknown): string | null {
  const graph = (metadata as { graph_id?: unknown } | null)?.graph_id;
  return typeof graph === "string" && graph ? graph : null;
}
