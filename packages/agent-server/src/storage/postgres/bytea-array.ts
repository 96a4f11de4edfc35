/**
 * A parser for bytea[] results (OID 1001) in PostgreSQL's text format, for the checkpointer's read:
 * the official query aggregates every channel's blob of a checkpoint into 2-D bytea arrays, and
 * pg's generic array parser walks that text a character at a time (the whole message history, in
 * hex, on every run's first read: the largest single cost of a run on PostgreSQL in the profile).
 * This one handles what the server sends for them (nested braces, NULL, quoted hex elements) with
 * indexOf and Buffer's hex decoder, and hands anything else to `fallback` (pg's own parser), so
 * its result is always the one pg would give.
 */
export function byteaArrayParser(fallback: (text: string) => unknown): (text: string) => unknown {
  return (text) => {
    if (!text) return fallback(text);
    const parsed = parseHexArray(text);
    return parsed === undefined ? fallback(text) : parsed;
  };
}

/** The nested arrays of `text`, or undefined when it is not in the shape this parser reads. */
function parseHexArray(text: string): unknown[] | undefined {
  let at = 0;
  const level = (): unknown[] | undefined => {
    if (text[at] !== "{") return undefined;
    at += 1;
    const out: unknown[] = [];
    if (text[at] === "}") {
      at += 1;
      return out;
    }
    for (;;) {
      const c = text[at];
      if (c === "{") {
        const inner = level();
        if (inner === undefined) return undefined;
        out.push(inner);
      } else if (c === '"') {
        // A hex bytea, its backslash escaped: "\\x0a1b…" (hex digits hold no quote or backslash).
        if (text[at + 1] !== "\\" || text[at + 2] !== "\\" || text[at + 3] !== "x") return undefined;
        const end = text.indexOf('"', at + 4);
        if (end < 0) return undefined;
        const hex = text.slice(at + 4, end);
        if (hex.length % 2 !== 0 || hex.includes("\\")) return undefined;
        out.push(Buffer.from(hex, "hex"));
        at = end + 1;
      } else if (text.startsWith("NULL", at)) {
        out.push(null);
        at += 4;
      } else return undefined;
      const separator = text[at];
      at += 1;
      if (separator === "}") return out;
      if (separator !== ",") return undefined;
    }
  };
  const result = level();
  return result !== undefined && at === text.length ? result : undefined;
}
