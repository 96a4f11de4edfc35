import type { ReusedSpan } from "../checkpoint-serde.js";

/**
 * How a checkpoint row is stored as a change to its parent (checkpoint-chains.ts): the `type`
 * column names the format, the `checkpoint` column holds a one-line header then the bytes that are
 * not copied from the parent. The header is a JSON array: the full length, then for every span
 * copied from the parent's (full) bytes where it goes, where it comes from and its length.
 */
export const DELTA_TYPE = "berth-delta-1";

/** A span of a checkpoint's bytes that are the parent checkpoint's bytes from `from`. */
export interface Span {
  at: number;
  from: number;
  length: number;
}

/**
 * The serializer's reused spans as offsets in `parent` (the bytes the key's previous write
 * returned), or undefined when any of them is not a view of those bytes. A view inside `parent`'s
 * memory is its bytes whatever ArrayBuffer they share (small buffers come from one pool).
 */
export function spansInto(parent: Uint8Array, reused: readonly ReusedSpan[]): Span[] | undefined {
  const spans: Span[] = [];
  let end = 0;
  for (const { at, head } of reused) {
    const from = head.byteOffset - parent.byteOffset;
    if (head.buffer !== parent.buffer || from < 0 || from + head.length > parent.length) return undefined;
    if (at < end) return undefined;
    spans.push({ at, from, length: head.length });
    end = at + head.length;
  }
  return spans;
}

export function encodeDelta(full: Uint8Array, spans: readonly Span[]): Uint8Array {
  const header = [full.length];
  for (const { at, from, length } of spans) header.push(at, from, length);
  const chunks: Uint8Array[] = [Buffer.from(`${JSON.stringify(header)}\n`)];
  let pos = 0;
  for (const { at, length } of spans) {
    chunks.push(full.subarray(pos, at));
    pos = at + length;
  }
  chunks.push(full.subarray(pos));
  return Buffer.concat(chunks);
}

/** The full bytes of a delta row whose parent's full bytes are `parent`; throws if they do not fit. */
export function decodeDelta(delta: Uint8Array, parent: Uint8Array): Uint8Array {
  const newline = delta.indexOf(10);
  const header = newline > 0 ? parseHeader(delta.subarray(0, newline)) : undefined;
  if (!header) throw new CorruptDelta("unreadable header");
  const [total, ...rest] = header;
  const out = Buffer.allocUnsafe(total ?? 0);
  let pos = 0;
  let literal = newline + 1;
  for (let i = 0; i + 2 < rest.length; i += 3) {
    const [at, from, length] = [rest[i] ?? 0, rest[i + 1] ?? 0, rest[i + 2] ?? 0];
    const gap = at - pos;
    if (gap < 0 || literal + gap > delta.length || from + length > parent.length || at + length > out.length)
      throw new CorruptDelta("a span does not fit");
    out.set(delta.subarray(literal, literal + gap), pos);
    literal += gap;
    out.set(parent.subarray(from, from + length), at);
    pos = at + length;
  }
  if (rest.length % 3 !== 0 || delta.length - literal !== out.length - pos)
    throw new CorruptDelta("lengths differ");
  out.set(delta.subarray(literal), pos);
  return out;
}

function parseHeader(bytes: Uint8Array): number[] | undefined {
  try {
    const header = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("latin1"));
    return Array.isArray(header) && header.every((n) => Number.isSafeInteger(n) && n >= 0)
      ? header
      : undefined;
  } catch {
    return undefined;
  }
}

export class CorruptDelta extends Error {
  constructor(reason: string) {
    super(`a checkpoint stored as a change to its parent cannot be read: ${reason}`);
  }
}
