import { randomUUID } from "node:crypto";
import { load } from "@langchain/core/load";
import { isBaseMessage } from "@langchain/core/messages";
import { DeltaSnapshot, JsonPlusSerializer, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { Fingerprints, LatestWritten, ReadMessages, type Written } from "./checkpoint-serde-caches.js";
import { type WrittenList, writeList } from "./checkpoint-serde-lists.js";

/**
 * The official checkpoint format (LangGraph's JsonPlusSerializer: same bytes written, same values
 * read), at a cost that does not grow with every step of a long thread.
 *
 * Why: a chat thread's checkpoint holds its whole message list, and LangGraph saves one per step
 * (echo: 3 per run, the ReAct agent: 5). The official serializer turns every message into its
 * LangChain constructor form (`toJSON`, aliases, key mapping) at every save, and reads them back
 * through an `await` per JSON value. Profiled on the chat bench (issue 31), that was most of the
 * CPU that grew with the thread.
 *
 * - Writing: a message's JSON is kept per message object (WeakMap) and spliced into the
 *   checkpoint's JSON, so a message is serialised once, not at every step. A message read from a
 *   checkpoint keeps the JSON it was loaded from (what the official reader hands to `load` too):
 *   those bytes load back to the same message, so the next run's saves write only its new ones.
 *   LangGraph never changes a message once it is in a checkpoint (the messages reducer gives ids
 *   to new messages before they are stored); the entry is still dropped when its id or content
 *   changed, the two fields graph code might overwrite in place.
 * - Reading: the same revival rules, applied synchronously; only LangChain objects (messages)
 *   wait for `load`, all at once, and a message read before from the same stored JSON is reused
 *   (ReadMessages). Anything unusual (a Set or Map holding messages) falls back to the official
 *   reader.
 */
export class CheckpointSerializer implements SerializerProtocol {
  private readonly base = new JsonPlusSerializer();
  private readonly memo = new WeakMap<object, { json: string; id: unknown; content: unknown }>();
  private readonly read = new ReadMessages();
  /** A token per spliced message: NUL (escaped by JSON) + a per-instance nonce, never user text. */
  private readonly tokenPrefix = `\u0000${randomUUID()}:`;
  private readonly decoder = new TextDecoder();

  private readonly written = new LatestWritten();

  async dumpsTyped(data: unknown): Promise<[string, Uint8Array]> {
    const { type, bytes } = await this.dump(data);
    return [type, bytes];
  }

  /**
   * dumpsTyped for the latest value of `key` (a thread's checkpoint, or one channel of it): the
   * next read of exactly these bytes, usually the thread's next run, gets the same messages back
   * without parsing them (LatestWritten).
   */
  async dumpsTypedFor(key: string, data: unknown): Promise<[string, Uint8Array]> {
    const { type, bytes } = await this.dumpFor(key, data);
    return [type, bytes];
  }

  /**
   * dumpsTypedFor, also saying which spans of the bytes were copied from the key's previous write
   * (`reused`: where each starts in `bytes`, and the view of the previous write's bytes it copied).
   * The SQLite saver stores such a checkpoint as its parent plus the rest (checkpoint-deltas.ts).
   */
  async dumpFor(
    key: string,
    data: unknown,
  ): Promise<{ type: string; bytes: Uint8Array; reused: ReusedSpan[] }> {
    const previous = this.written.latest(key)?.messages.lists ?? [];
    const { type, bytes, skeleton, pieces, reused } = await this.dump(data, previous);
    if (skeleton !== undefined && pieces !== undefined)
      this.written.set(key, bytes, { skeleton, values: pieces.values, messages: pieces.messages });
    return { type, bytes, reused: reused ?? [] };
  }

  /** `previous`: the lists of messages of the same key's last write, to extend (writeList). */
  private async dump(
    data: unknown,
    previous: readonly WrittenList[] = [],
  ): Promise<{ type: string; bytes: Uint8Array; skeleton?: string; pieces?: Pieces; reused?: ReusedSpan[] }> {
    if (data instanceof Uint8Array) {
      const [type, bytes] = await this.base.dumpsTyped(data);
      return { type, bytes };
    }
    const pieces: Pieces = { json: [], values: [], lists: [], messages: new Fingerprints(), previous };
    const shallow = this.substitute(data, pieces, 0);
    if (pieces.json.length === 0) {
      const [type, bytes] = await this.base.dumpsTyped(data);
      return { type, bytes };
    }
    const [type, skeletonBytes] = await this.base.dumpsTyped(shallow);
    const skeleton = this.decoder.decode(skeletonBytes);
    const reused: ReusedSpan[] = [];
    return { type, bytes: this.splice(skeleton, pieces, reused), skeleton, pieces, reused };
  }

  /**
   * The skeleton's tokens replaced by their JSON, as UTF-8 bytes. A reused list's JSON is copied
   * from the bytes it was written as (no text of the whole history is built or encoded again), and
   * each list's JSON then becomes its view of the result, which the next step's writeList extends.
   * UTF-8 of the joined text is the join of the parts' UTF-8: every cut is at an ASCII character.
   */
  private splice(text: string, pieces: Pieces, reused: ReusedSpan[]): Uint8Array {
    const { json, lists } = pieces;
    const spans: Array<[list: WrittenList, start: number, end: number]> = [];
    const chunks: Uint8Array[] = [];
    let length = 0;
    const add = (chunk: Uint8Array) => {
      chunks.push(chunk);
      length += chunk.length;
    };
    // The token as JSON writes it: the NUL is escaped as \u0000.
    const needle = JSON.stringify(this.tokenPrefix).slice(0, -1);
    let from = 0;
    for (let at = text.indexOf(needle, from); at >= 0; at = text.indexOf(needle, from)) {
      const end = text.indexOf('"', at + needle.length);
      const index = Number(text.slice(at + needle.length, end));
      add(Buffer.from(text.slice(from, at)));
      const list = lists[index];
      if (list) {
        const start = length;
        if (list.head) {
          reused.push({ at: length, head: list.head });
          add(list.head);
        }
        if (list.tail) add(Buffer.from(list.tail));
        spans.push([list, start, length]);
      } else add(Buffer.from(json[index] ?? "null"));
      from = end + 1;
    }
    add(Buffer.from(text.slice(from)));
    const out = Buffer.concat(chunks, length);
    for (const [list, start, end] of spans) {
      list.bytes = out.subarray(start, end);
      // The earlier write's buffer is no longer needed through this list.
      list.head = undefined;
      list.tail = "";
    }
    return out;
  }

  async loadsTyped(type: string, data: Uint8Array | string): Promise<unknown> {
    if (type !== "json") return this.base.loadsTyped(type, data);
    const latest = typeof data === "string" ? undefined : this.written.get(data);
    if (latest) {
      const rebuilt = await this.rebuild(latest);
      if (rebuilt.ok) return rebuilt.value;
    }
    const text = typeof data === "string" ? data : this.decoder.decode(data);
    const root = { value: JSON.parse(text) as unknown };
    const walk: Walk = {
      pending: [],
      messages: 0,
      fallback: false,
      loaded: (key, json, message) => {
        this.remember(message, json);
        this.read.keep(key, message);
      },
      reuse: (key) => this.read.reuse(key),
    };
    revive(root, "value", walk, false);
    if (walk.fallback) return this.base.loadsTyped(type, text);
    await Promise.all(walk.pending);
    return root.value;
  }

  /**
   * A copy of the plain containers around the messages, each message, or list made only of
   * messages (a messages channel), replaced by a token whose JSON goes to `pieces`. One token per
   * list keeps the skeleton and the splice small however long the thread: the list's JSON is its
   * messages' memoised JSON joined, as JSON.stringify writes an array. Depth 4 reaches a
   * checkpoint's channel values' lists.
   */
  private substitute(value: unknown, pieces: Pieces, depth: number): unknown {
    if (value === null || typeof value !== "object") return value;
    if (isBaseMessage(value)) {
      pieces.messages.add(value);
      pieces.values.push(value);
      return `${this.tokenPrefix}${pieces.json.push(this.messageJson(value)) - 1}`;
    }
    if (depth >= 4) return value;
    if (Array.isArray(value)) {
      const list = writeList(value, pieces.previous, this.messageJson);
      if (list !== undefined) {
        pieces.messages.lists.push(list);
        pieces.values.push(list.items);
        pieces.lists[pieces.json.length] = list;
        // The list's JSON is spliced from `list` itself (its head and tail).
        return `${this.tokenPrefix}${pieces.json.push("") - 1}`;
      }
      return value.map((item) => this.substitute(item, pieces, depth + 1));
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return value;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      out[key] = this.substitute((value as Record<string, unknown>)[key], pieces, depth + 1);
    }
    return out;
  }

  /**
   * The value last written as these bytes: its skeleton parsed and revived as any read would be,
   * its tokens replaced by the very messages (and lists) written, if none changed since (else not
   * ok: read).
   */
  private async rebuild(latest: Written): Promise<{ ok: boolean; value?: unknown }> {
    if (!latest.messages.unchanged()) return { ok: false };
    const root = { value: JSON.parse(latest.skeleton) as unknown };
    const walk: Walk = {
      pending: [],
      messages: 0,
      fallback: false,
      loaded: () => {},
      reuse: () => undefined,
    };
    revive(root, "value", walk, false);
    if (walk.fallback) return { ok: false };
    await Promise.all(walk.pending);
    return { ok: true, value: fillTokens(root.value, this.tokenPrefix, latest.values, 0) };
  }

  private readonly messageJson = (message: object): string => {
    const { id, content } = message as { id?: unknown; content?: unknown };
    const kept = this.memo.get(message);
    if (kept && kept.id === id && kept.content === content) return kept.json;
    // The official writer on the message alone: JSON.stringify writes an array's items the same way.
    const json = this.decoder.decode(
      (this.base as unknown as { _dumps(v: unknown): Uint8Array })._dumps(message),
    );
    this.remember(message, json);
    return json;
  };

  private remember(message: unknown, json: string): void {
    if (typeof message !== "object" || message === null || !isBaseMessage(message)) return;
    const { id, content } = message as { id?: unknown; content?: unknown };
    this.memo.set(message, { json, id, content });
  }
}

/**
 * The skeleton's token strings (at the depths `substitute` reaches) replaced by what they stand
 * for: a message, or a fresh copy of a list (the reader may change its list; the one kept stays).
 */
function fillTokens(value: unknown, prefix: string, values: unknown[], depth: number): unknown {
  if (typeof value === "string") {
    if (!value.startsWith(prefix)) return value;
    const kept = values[Number(value.slice(prefix.length))];
    return Array.isArray(kept) ? kept.slice() : kept;
  }
  if (value === null || typeof value !== "object" || depth >= 4) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) value[i] = fillTokens(value[i], prefix, values, depth + 1);
    return value;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) record[key] = fillTokens(record[key], prefix, values, depth + 1);
  return record;
}

/** Bytes of a write copied from the same key's previous write: `head` is a view of those bytes. */
export interface ReusedSpan {
  /** Where the copy starts in the new write's bytes. */
  at: number;
  head: Uint8Array;
}

/** What a dump spliced: each token's JSON and value, and every message met, fingerprinted. */
interface Pieces {
  json: string[];
  values: unknown[];
  /** The written list each list token stands for, by token index. */
  lists: Array<WrittenList | undefined>;
  messages: Fingerprints;
  /** The lists the same key's last write held (writeList extends them). */
  previous: readonly WrittenList[];
}

interface Walk {
  pending: Promise<void>[];
  /** LangChain objects met (loaded or reused). */
  messages: number;
  fallback: boolean;
  /**
   * A message loaded from `json` (its stored form `key`): that JSON is its memoised JSON (it loads
   * back to the same message), and the next read of `key` may reuse it.
   */
  loaded(key: string, json: string, message: unknown): void;
  reuse(key: string): object | undefined;
}

type Json = Record<string, unknown>;

const isLangChainSerialized = (v: Json) => v.lc === 1 && v.type === "constructor" && Array.isArray(v.id);

/**
 * JsonPlusSerializer's `_reviver`, in place on freshly parsed JSON: children first, then the
 * record itself. LangChain objects are handed to `load` (async) and written back when it answers;
 * those nested inside another LangChain object are left as JSON, as `load` revives them itself.
 */
function revive(holder: Json | unknown[], key: string | number, walk: Walk, insideLc: boolean): void {
  const value = (holder as Json)[key as string];
  if (value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) revive(value, i, walk, insideLc);
    return;
  }
  const record = value as Json;
  const lc = isLangChainSerialized(record);
  const stored = lc && !insideLc ? JSON.stringify(record) : undefined;
  if (stored !== undefined) {
    walk.messages += 1;
    const reused = walk.reuse(stored);
    if (reused !== undefined) {
      (holder as Json)[key as string] = reused;
      return;
    }
  }
  const messagesBefore = walk.messages;
  for (const k of Object.keys(record)) revive(record, k, walk, insideLc || lc);
  if (record.lc === 2) {
    if (record.type === "undefined") {
      (holder as Json)[key as string] = undefined;
      return;
    }
    const special = record.type === "delta_snapshot" || record.type === "constructor";
    // A Set, Map or snapshot holding LangChain objects would be built before they are loaded.
    if (special && walk.messages > messagesBefore) {
      walk.fallback = true;
      return;
    }
    if (record.type === "delta_snapshot" && Object.hasOwn(record, "value")) {
      (holder as Json)[key as string] = new DeltaSnapshot(record.value);
      return;
    }
    if (record.type === "constructor") {
      const built = reviveConstructor(record);
      if (built !== undefined) (holder as Json)[key as string] = built;
      return;
    }
  }
  if (stored !== undefined) {
    const json = JSON.stringify(record);
    walk.pending.push(
      load(json).then((loaded) => {
        (holder as Json)[key as string] = loaded;
        walk.loaded(stored, json, loaded);
      }),
    );
  }
}

/** The closed set of lc:2 constructor records JsonPlusSerializer writes (never a method call). */
function reviveConstructor(record: Json): unknown {
  const id = record.id;
  const name = Array.isArray(id) && id.length === 1 ? id[0] : undefined;
  const args = record.args;
  const method = record.method;
  const noMethod = method === undefined || method === null;
  const singleArray = Array.isArray(args) && args.length === 1 && Array.isArray(args[0]);
  const first = Array.isArray(args) ? (args[0] as unknown) : undefined;
  if (name === "Set" && noMethod) return singleArray ? new Set(first as unknown[]) : undefined;
  if (name === "Map" && noMethod) {
    if (!singleArray || !(first as unknown[]).every((e) => Array.isArray(e) && e.length === 2)) return;
    return new Map(first as Array<[unknown, unknown]>);
  }
  if (name === "RegExp" && noMethod) {
    if (
      !Array.isArray(args) ||
      args.length !== 2 ||
      typeof args[0] !== "string" ||
      typeof args[1] !== "string"
    )
      return;
    try {
      return new RegExp(args[0], args[1]);
    } catch {
      return;
    }
  }
  if (name === "Error" && noMethod) {
    if (!Array.isArray(args) || args.length !== 1 || typeof args[0] !== "string") return;
    return new Error(args[0]);
  }
  if (name === "Uint8Array" && (noMethod || method === "from")) {
    if (!singleArray) return;
    const bytes = first as unknown[];
    if (!bytes.every((b) => typeof b === "number" && Number.isInteger(b) && b >= 0 && b <= 255)) return;
    return new Uint8Array(bytes as number[]);
  }
  return undefined;
}
