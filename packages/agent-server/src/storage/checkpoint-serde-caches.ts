import { isBaseMessage } from "@langchain/core/messages";
import { listUnchanged, type WrittenList } from "./checkpoint-serde-lists.js";

// The two caches of CheckpointSerializer (checkpoint-serde.ts): messages by the JSON they were read
// from, and the last value written per thread. Both hand out a message again only while its id and
// content are the ones it had.

/**
 * Messages as written, with the fields checked before they are handed out again: flat lists rather
 * than an object per message, since a checkpoint of a long thread holds hundreds.
 */
export class Fingerprints {
  private readonly messages: object[] = [];
  private readonly ids: unknown[] = [];
  private readonly contents: unknown[] = [];
  /** The lists of messages written whole (their items fingerprinted in them). */
  readonly lists: WrittenList[] = [];

  add(message: object): void {
    const { id, content } = message as { id?: unknown; content?: unknown };
    this.messages.push(message);
    this.ids.push(id);
    this.contents.push(content);
  }

  /** Whether every message still has the id and content it was written with. */
  unchanged(): boolean {
    for (let i = 0; i < this.messages.length; i += 1) {
      const { id, content } = this.messages[i] as { id?: unknown; content?: unknown };
      if (id !== this.ids[i] || content !== this.contents[i]) return false;
    }
    return this.lists.every(listUnchanged);
  }
}

export interface Written {
  skeleton: string;
  /** What each token of the skeleton stands for: a message, or a list of messages. */
  values: unknown[];
  messages: Fingerprints;
}

/**
 * Threads whose last write is kept, least recently written first: enough for 256 chats running at
 * once (a thread's next run then finds its write); more only costs a parse. Bounded so that a
 * server with many short threads (the soak) holds no more than this.
 */
const LATEST_KEYS = 256;
/** Bytes of written JSON kept at most. */
const LATEST_BYTES = 8_000_000;

interface LatestEntry {
  bytes: Uint8Array;
  written: Written;
}

/**
 * The last value written per thread (or per thread channel on PostgreSQL), by its exact bytes. A
 * thread's next run reads back the checkpoint its previous run wrote last: with this it gets the
 * same messages without parsing them, only the small rest of the checkpoint (the skeleton) is
 * parsed and revived. One entry per key, so intermediate steps do not push other threads out.
 * Kept as the bytes written (off the JS heap, compared before anything is decoded), not as text:
 * a checkpoint of a long thread is a large string that would otherwise outlive a young-generation
 * collection at every step.
 */
export class LatestWritten {
  private readonly byKey = new Map<string, LatestEntry>();
  /** Entries by byte length; two keys may have written identical bytes (a copied thread). */
  private readonly byLength = new Map<number, Set<LatestEntry>>();
  private bytes = 0;

  set(key: string, bytes: Uint8Array, written: Written): void {
    this.forget(key);
    if (bytes.length > LATEST_BYTES / 16) return;
    const entry = { bytes, written };
    this.byKey.set(key, entry);
    let sameLength = this.byLength.get(bytes.length);
    if (!sameLength) {
      sameLength = new Set();
      this.byLength.set(bytes.length, sameLength);
    }
    sameLength.add(entry);
    this.bytes += bytes.length;
    for (const oldest of this.byKey.keys()) {
      if (this.byKey.size <= LATEST_KEYS && this.bytes <= LATEST_BYTES) break;
      this.forget(oldest);
    }
  }

  get(data: Uint8Array): Written | undefined {
    const sameLength = this.byLength.get(data.length);
    if (!sameLength) return undefined;
    const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    for (const entry of sameLength) if (view.equals(entry.bytes)) return entry.written;
    return undefined;
  }

  /** The last value written for `key`, if still kept. */
  latest(key: string): Written | undefined {
    return this.byKey.get(key)?.written;
  }

  private forget(key: string): void {
    const entry = this.byKey.get(key);
    if (entry === undefined) return;
    this.byKey.delete(key);
    const sameLength = this.byLength.get(entry.bytes.length);
    sameLength?.delete(entry);
    if (sameLength?.size === 0) this.byLength.delete(entry.bytes.length);
    this.bytes -= entry.bytes.length;
  }
}

/** Characters of stored message JSON whose messages are kept for the next read (~8 MB of keys). */
const READ_CACHE_CHARS = 4_000_000;

/**
 * Messages read from checkpoints, by the exact JSON they were stored as, least recently used
 * first: a chat thread's next run reads the same history again, and building each message through
 * LangChain's `load` was the largest cost that grew with the thread. A message is reused only while
 * its id and content are still the ones it was read with (LangGraph treats state as immutable;
 * graph code that edits a message in place most likely edits those).
 */
export class ReadMessages {
  private readonly byJson = new Map<string, { message: object; id: unknown; content: unknown }>();
  private chars = 0;

  reuse(key: string): object | undefined {
    const entry = this.byJson.get(key);
    if (!entry) return undefined;
    const { id, content } = entry.message as { id?: unknown; content?: unknown };
    this.byJson.delete(key);
    if (id !== entry.id || content !== entry.content) {
      this.chars -= key.length;
      return undefined;
    }
    this.byJson.set(key, entry);
    return entry.message;
  }

  keep(key: string, message: unknown): void {
    if (typeof message !== "object" || message === null || !isBaseMessage(message)) return;
    if (key.length > READ_CACHE_CHARS / 100) return;
    const { id, content } = message as { id?: unknown; content?: unknown };
    if (!this.byJson.has(key)) this.chars += key.length;
    this.byJson.set(key, { message, id, content });
    for (const old of this.byJson.keys()) {
      if (this.chars <= READ_CACHE_CHARS) break;
      this.byJson.delete(old);
      this.chars -= old.length;
    }
  }
}
