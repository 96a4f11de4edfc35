import { isBaseMessage } from "@langchain/core/messages";

/**
 * A list made only of messages (a messages channel) as CheckpointSerializer wrote it: a copy of its
 * items, each one's id and content then, and the list's JSON as UTF-8 bytes.
 */
export interface WrittenList {
  items: object[];
  ids: unknown[];
  contents: unknown[];
  /**
   * The list's JSON, once written: a view of the checkpoint's bytes (CheckpointSerializer.splice).
   * Bytes rather than text because it is kept until the thread's next write, which at 32 chats
   * running is several young-generation collections later: a string of a long thread's history
   * would be promoted to the old generation at every step (a full collection every few waves of
   * runs at turn 50); the bytes live outside the JS heap, in the buffer LatestWritten keeps anyway.
   */
  bytes: Uint8Array;
  /** Until it is written: its JSON as a prefix of an earlier list's bytes (if reused), then text. */
  head: Uint8Array | undefined;
  tail: string;
}

type MessageFields = { id?: unknown; content?: unknown };

const NOT_WRITTEN = new Uint8Array(0);

/**
 * `list` written (undefined: not a non-empty list of messages only), from the same thread's last
 * write where that is a prefix of it. Why: LangGraph's messages reducer makes a new list at every
 * step holding the same message objects plus the step's new ones, and a checkpoint per step writes
 * all of them; finding each one's memoised JSON again cost more with every turn of a chat (issue
 * 31). A previous list is a prefix when its items are the first ones of `list`, the same objects
 * with the same id and content (the fields graph code might change in place); its JSON is then
 * reused up to its closing bracket and only the new messages are written. Anything else (a message
 * removed or replaced) is written whole.
 */
export function writeList(
  list: unknown[],
  previous: readonly WrittenList[],
  messageJson: (message: object) => string,
): WrittenList | undefined {
  if (list.length === 0) return undefined;
  const prefix = previous.find((p) => p.items[0] === list[0] && p.items.length <= list.length);
  let kept = 0;
  if (prefix) {
    const { items, ids, contents } = prefix;
    while (kept < items.length) {
      const item = list[kept] as MessageFields;
      if (item !== items[kept] || item.id !== ids[kept] || item.content !== contents[kept]) break;
      kept += 1;
    }
  }
  const reused = prefix && kept === prefix.items.length ? prefix : undefined;
  const from = reused ? kept : 0;
  for (let i = from; i < list.length; i += 1) if (!isBaseMessage(list[i])) return undefined;
  const ids = reused ? reused.ids.slice() : [];
  const contents = reused ? reused.contents.slice() : [];
  const parts: string[] = [];
  for (let i = from; i < list.length; i += 1) {
    const message = list[i] as object & MessageFields;
    ids.push(message.id);
    contents.push(message.content);
    parts.push(messageJson(message));
  }
  // JSON.stringify writes an array as its items' JSON between brackets, comma-separated; the
  // reused JSON ends with its closing bracket (one byte).
  const items = list.slice() as object[];
  if (!reused)
    return { items, ids, contents, bytes: NOT_WRITTEN, head: undefined, tail: `[${parts.join(",")}]` };
  if (parts.length === 0) return { items, ids, contents, bytes: NOT_WRITTEN, head: reused.bytes, tail: "" };
  const head = reused.bytes.subarray(0, reused.bytes.length - 1);
  return { items, ids, contents, bytes: NOT_WRITTEN, head, tail: `,${parts.join(",")}]` };
}

/** Whether every item of a written list still has the id and content it was written with. */
export function listUnchanged(list: WrittenList): boolean {
  for (let i = 0; i < list.items.length; i += 1) {
    const item = list.items[i] as MessageFields;
    if (item.id !== list.ids[i] || item.content !== list.contents[i]) return false;
  }
  return true;
}
