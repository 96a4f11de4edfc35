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
      // Partials from the model tokens; messages/complete from the state after each step, as the
      // official JS server derives it.
      modes.add("messages");
      modes.add("values");
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
 * `messages-tuple` becomes `messages` [chunk, metadata], and `messages` is synthesised as the
 * official JS server does it: `messages/metadata` and `messages/partial` (the message accumulated so
 * far) for chat-model tokens only, and, right after each step's state, `messages/complete` with the
 * messages of that state not completed before (input and tool messages included, which get no
 * partials). Subgraph events are named `mode|ns1|ns2`.
 */
export class StreamEventMapper {
  private readonly requested: Set<string>;
  private readonly partial = new Map<string, BaseMessage>();
  /** Completed message ids, per namespace (`suffix id`). */
  private readonly completed = new Set<string>();

  constructor(
    requested: readonly string[],
    /** Whether the run asked for subgraph events (`stream_subgraphs`). */
    private readonly subgraphs = false,
  ) {
    this.requested = new Set(requested);
  }

  /** The events for one LangGraph chunk (`namespace` is empty for the root graph). */
  map(namespace: readonly string[], mode: string, data: unknown): OutgoingEvent[] {
    const nested = namespace.length > 0;
    const suffix = nested ? `|${namespace.join("|")}` : "";
    const out: OutgoingEvent[] = [];
    if (mode === "messages") {
      const [chunk, metadata] = data as [unknown, unknown];
      if (this.requested.has("messages-tuple") && (!nested || this.subgraphs))
        out.push({ event: `messages${suffix}`, data: [toWire(chunk), toWire(metadata)] });
      // LangGraph's messages mode also reports whole messages (a node's output, a model that did
      // not stream): the official server has no partials for those, only messages/complete. Its
      // partials are every chat model's tokens, a subgraph's too, unsuffixed with or without
      // `stream_subgraphs`.
      if (this.requested.has("messages") && isBaseMessage(chunk) && isChunk(chunk))
        out.push(...this.partialEvents(chunk, metadata, ""));
      return out;
    }
    // Other subgraph events only when the run asked for them.
    if (nested && !this.subgraphs) return out;
    if (this.requested.has(mode)) out.push({ event: `${mode}${suffix}`, data: toWire(apiShape(mode, data)) });
    if (mode === "values" && this.requested.has("messages")) out.push(...this.completeEvents(data, suffix));
    return out;
  }

  private partialEvents(chunk: BaseMessage, metadata: unknown, suffix: string): OutgoingEvent[] {
    const id = chunk.id;
    if (!id) return [];
    const out: OutgoingEvent[] = [];
    const previous = this.partial.get(id);
    if (!previous)
      out.push({ event: `messages/metadata${suffix}`, data: { [id]: { metadata: toWire(metadata) } } });
    const accumulated = previous && isChunk(previous) ? previous.concat(chunk) : chunk;
    this.partial.set(id, accumulated);
    out.push({ event: `messages/partial${suffix}`, data: [toWire(accumulated)] });
    return out;
  }

  private completeEvents(state: unknown, suffix: string): OutgoingEvent[] {
    const messages = (state as { messages?: unknown } | null)?.messages;
    if (typeof state !== "object" || state === null || isBaseMessage(state) || !messages) return [];
    const complete: unknown[] = [];
    for (const message of Array.isArray(messages) ? messages : [messages]) {
      const id = (message as { id?: unknown } | null)?.id;
      if (typeof id !== "string" || !id || this.completed.has(`${suffix} ${id}`)) continue;
      this.completed.add(`${suffix} ${id}`);
      this.partial.delete(id);
      complete.push(toWire(message));
    }
    return complete.length > 0 ? [{ event: `messages/complete${suffix}`, data: complete }] : [];
  }
}
