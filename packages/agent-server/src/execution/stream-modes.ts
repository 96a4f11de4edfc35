import { type BaseMessage, isBaseMessage } from "@langchain/core/messages";
import { toWire } from "../domain/serialize.js";
import { apiCheckpoint, apiDebugEvent, apiTask } from "./debug-events.js";

/** One SSE event to publish. */
export interface OutgoingEvent {
  event: string;
  data: unknown;
}

/** The LangGraph stream modes needed to serve the requested API modes. */
export function nativeModes(requested: readonly string[]): string[] {
  const modes = new Set<string>();
  for (const mode of requested) {
    if (mode === "messages-tuple") modes.add("messages");
    else if (mode === "messages") {
      modes.add("messages");
      // messages/complete is derived from the nodes' updates.
      modes.add("updates");
    } else modes.add(mode);
  }
  if (modes.size === 0) modes.add("values");
  return [...modes];
}

/**
 * A message chunk made by any copy of `@langchain/core`: duck-typed, because a project with its own
 * `node_modules` makes chunks Berth's class identity (`BaseMessageChunk.isInstance`) rejects.
 */
function isChunk(message: BaseMessage): message is BaseMessage & { concat(other: unknown): BaseMessage } {
  return typeof (message as { concat?: unknown }).concat === "function";
}

/** Checkpoints and tasks of the debug-like modes in the API's shape (see debug-events.ts). */
function apiShape(mode: string, data: unknown): unknown {
  if (mode === "debug") return apiDebugEvent(data);
  if (mode === "checkpoints") return apiCheckpoint(data);
  if (mode === "tasks") return apiTask(data);
  return data;
}

/**
 * Turns LangGraph stream chunks into the Agent Server's SSE events: native modes pass through,
 * `messages-tuple` becomes `messages` [chunk, metadata], and `messages` is synthesised as
 * `messages/metadata`, `messages/partial` (the message accumulated so far) and `messages/complete`.
 * Subgraph events are named `mode|ns1|ns2`.
 */
export class StreamEventMapper {
  private readonly requested: Set<string>;
  private readonly partial = new Map<string, BaseMessage>();
  private readonly completed = new Set<string>();

  constructor(requested: readonly string[]) {
    this.requested = new Set(requested);
  }

  map(namespace: readonly string[], mode: string, data: unknown): OutgoingEvent[] {
    const suffix = namespace.length > 0 ? `|${namespace.join("|")}` : "";
    const out: OutgoingEvent[] = [];
    if (mode === "messages") {
      const [chunk, metadata] = data as [unknown, unknown];
      if (this.requested.has("messages-tuple"))
        out.push({ event: `messages${suffix}`, data: [toWire(chunk), toWire(metadata)] });
      if (this.requested.has("messages") && isBaseMessage(chunk))
        out.push(...this.partialEvents(chunk, metadata, suffix));
      return out;
    }
    if (mode === "updates" && this.requested.has("messages")) out.push(...this.completeEvents(data, suffix));
    if (this.requested.has(mode)) out.push({ event: `${mode}${suffix}`, data: toWire(apiShape(mode, data)) });
    return out;
  }

  private partialEvents(chunk: BaseMessage, metadata: unknown, suffix: string): OutgoingEvent[] {
    const id = chunk.id ?? "";
    const out: OutgoingEvent[] = [];
    const previous = this.partial.get(id);
    if (!previous)
      out.push({ event: `messages/metadata${suffix}`, data: { [id]: { metadata: toWire(metadata) } } });
    const accumulated = previous && isChunk(previous) && isChunk(chunk) ? previous.concat(chunk) : chunk;
    this.partial.set(id, accumulated);
    out.push({ event: `messages/partial${suffix}`, data: [toWire(accumulated)] });
    return out;
  }

  private completeEvents(update: unknown, suffix: string): OutgoingEvent[] {
    const complete: unknown[] = [];
    for (const nodeUpdate of Object.values((update ?? {}) as Record<string, unknown>)) {
      const messages = (nodeUpdate as { messages?: unknown } | null)?.messages;
      for (const message of Array.isArray(messages) ? messages : messages ? [messages] : []) {
        if (!isBaseMessage(message) || !message.id || this.completed.has(message.id)) continue;
        this.completed.add(message.id);
        this.partial.delete(message.id);
        complete.push(toWire(message));
      }
    }
    return complete.length > 0 ? [{ event: `messages/complete${suffix}`, data: complete }] : [];
  }
}
