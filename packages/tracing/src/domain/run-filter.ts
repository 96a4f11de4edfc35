/**
 * LangSmith's run filter expressions (`filter`, `trace_filter`, `tree_filter` of `POST /runs/query`,
 * what `Client.listRuns({filter})` sends): the common subset, parsed by hand into a checked tree
 * (no eval, bounded length, depth and size) that the trace store turns into SQL.
 *
 *   and(a, b, …)  or(a, b, …)  not(a)
 *   eq|neq(field, value)   gt|gte|lt|lte(field, value)   in(field, [value, …])
 *   has(tags, "tag")       search("text")
 *
 * Fields: id, trace_id, parent_run_id, name, run_type, status ("success" | "error" | "pending"),
 * is_root (true/false), start_time / end_time (ISO time), latency (seconds, or "500ms" / "2s"),
 * prompt_tokens / completion_tokens / total_tokens, and metadata: the pair
 * `and(eq(metadata_key, "<any key>"), eq(metadata_value, "…"))`, or `eq(metadata_key, "k")` alone
 * (the key is present). Values compare as text (numbers by their decimal form).
 * Anything else is refused with the reason, never ignored.
 */

export type Comparison = "eq" | "neq" | "gt" | "gte" | "lt" | "lte";

/** Columns a filter compares directly (text columns; times and tokens are numbers). */
export type TextField =
  | "id"
  | "trace_id"
  | "parent_run_id"
  | "name"
  | "run_type"
  | "thread_id"
  | "agent_run_id"
  | "graph_id";
export type NumberField = "start_ms" | "end_ms" | "prompt_tokens" | "completion_tokens" | "total_tokens";

export type RunFilter =
  | { kind: "and" | "or"; items: RunFilter[] }
  | { kind: "not"; item: RunFilter }
  | { kind: "text"; field: TextField; op: "eq" | "neq"; value: string }
  | { kind: "in"; field: TextField; values: string[] }
  | { kind: "number"; field: NumberField; op: Comparison; value: number }
  | { kind: "latency"; op: Comparison; ms: number }
  | { kind: "status"; status: "success" | "error" | "pending"; negate: boolean }
  | { kind: "is_root"; value: boolean }
  | { kind: "has_tag"; tag: string }
  /** `value` undefined: the key is present. */
  | { kind: "metadata"; key: string; value?: string | undefined }
  | { kind: "search"; text: string };

/** A filter that does not parse or asks for what Berth does not support; the message says which. */
export class RunFilterError extends Error {}

export const MAX_FILTER_LENGTH = 4_000;
const MAX_DEPTH = 16;
const MAX_NODES = 256;
const MAX_LIST = 100;

type Token =
  | { t: "ident"; v: string }
  | { t: "string"; v: string }
  | { t: "number"; v: number }
  | { t: "punct"; v: "(" | ")" | "[" | "]" | "," };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i] as string;
    if (/\s/.test(c)) {
      i += 1;
    } else if (c === "(" || c === ")" || c === "[" || c === "]" || c === ",") {
      tokens.push({ t: "punct", v: c });
      i += 1;
    } else if (c === '"' || c === "'") {
      let value = "";
      i += 1;
      for (;;) {
        const d = source[i];
        if (d === undefined) throw new RunFilterError("Unterminated string.");
        i += 1;
        if (d === c) break;
        if (d === "\\") {
          const e = source[i];
          if (e === undefined) throw new RunFilterError("Unterminated string.");
          value += e === "n" ? "\n" : e === "t" ? "\t" : e;
          i += 1;
        } else value += d;
      }
      tokens.push({ t: "string", v: value });
    } else {
      const match = /^(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|[A-Za-z_][A-Za-z0-9_]*)/.exec(
        source.slice(i, i + 64),
      );
      if (!match) throw new RunFilterError(`Unexpected character ${JSON.stringify(c)} at ${i}.`);
      const text = match[0];
      tokens.push(/^[-\d]/.test(text) ? { t: "number", v: Number(text) } : { t: "ident", v: text });
      i += text.length;
    }
  }
  return tokens;
}

/** The syntax tree before its meaning is checked. */
type Node =
  | { n: "call"; fn: string; args: Node[] }
  | { n: "ident"; v: string }
  | { n: "literal"; v: string | number | boolean | null }
  | { n: "list"; items: Node[] };

class Parser {
  private pos = 0;
  private nodes = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): Node {
    const node = this.expression(0);
    if (this.pos !== this.tokens.length) throw new RunFilterError("Unexpected text after the expression.");
    return node;
  }

  private next(): Token {
    const token = this.tokens[this.pos];
    if (!token) throw new RunFilterError("The expression ends too early.");
    this.pos += 1;
    return token;
  }

  private peekPunct(v: string): boolean {
    const token = this.tokens[this.pos];
    return token?.t === "punct" && token.v === v;
  }

  private expect(v: string): void {
    const token = this.next();
    if (token.t !== "punct" || token.v !== v) throw new RunFilterError(`Expected "${v}".`);
  }

  private expression(depth: number): Node {
    if (depth > MAX_DEPTH) throw new RunFilterError(`Nested deeper than ${MAX_DEPTH} levels.`);
    this.nodes += 1;
    if (this.nodes > MAX_NODES) throw new RunFilterError(`More than ${MAX_NODES} terms.`);
    const token = this.next();
    if (token.t === "string" || token.t === "number") return { n: "literal", v: token.v };
    if (token.t === "punct") {
      if (token.v !== "[") throw new RunFilterError(`Unexpected "${token.v}".`);
      const items: Node[] = [];
      while (!this.peekPunct("]")) {
        if (items.length > 0) this.expect(",");
        items.push(this.expression(depth + 1));
      }
      this.expect("]");
      return { n: "list", items };
    }
    const lower = token.v.toLowerCase();
    if (lower === "true" || lower === "false") return { n: "literal", v: lower === "true" };
    if (lower === "null") return { n: "literal", v: null };
    if (!this.peekPunct("(")) return { n: "ident", v: token.v };
    this.expect("(");
    const args: Node[] = [];
    while (!this.peekPunct(")")) {
      if (args.length > 0) this.expect(",");
      args.push(this.expression(depth + 1));
    }
    this.expect(")");
    return { n: "call", fn: lower, args };
  }
}

const COMPARISONS = new Set<string>(["eq", "neq", "gt", "gte", "lt", "lte"]);
const TEXT_FIELDS: Record<string, TextField> = {
  id: "id",
  trace_id: "trace_id",
  parent_run_id: "parent_run_id",
  name: "name",
  run_type: "run_type",
};
const NUMBER_FIELDS: Record<string, NumberField> = {
  prompt_tokens: "prompt_tokens",
  completion_tokens: "completion_tokens",
  total_tokens: "total_tokens",
};
const TIME_FIELDS: Record<string, NumberField> = { start_time: "start_ms", end_time: "end_ms" };
/** Metadata keys Berth keeps in columns of their own (the agent run's ids). */
const METADATA_COLUMNS: Record<string, TextField> = {
  thread_id: "thread_id",
  run_id: "agent_run_id",
  graph_id: "graph_id",
};

/** A fixed table's own entry: names come from the request, so `constructor` must not find Object's. */
function lookup<T>(table: Record<string, T>, name: string): T | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

function fieldOf(node: Node | undefined, fn: string): string {
  if (node?.n !== "ident") throw new RunFilterError(`${fn}() takes a field name first.`);
  return node.v.toLowerCase();
}

function literalOf(node: Node | undefined, what: string): string | number | boolean | null {
  if (node?.n !== "literal") throw new RunFilterError(`${what} must be a value.`);
  return node.v;
}

function textOf(node: Node | undefined, what: string): string {
  const value = literalOf(node, what);
  if (typeof value !== "string") throw new RunFilterError(`${what} must be a string.`);
  return value;
}

function timeOf(node: Node | undefined, what: string): number {
  const value = literalOf(node, what);
  const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new RunFilterError(`${what} must be an ISO 8601 time.`);
  return ms;
}

/** Seconds as a number, or a string with a unit ("500ms", "2s", "1.5m"), in milliseconds. */
function durationOf(node: Node | undefined): number {
  const value = literalOf(node, "latency");
  if (typeof value === "number" && Number.isFinite(value)) return value * 1000;
  const match = typeof value === "string" ? /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(value) : null;
  if (!match) throw new RunFilterError('latency must be seconds, or a duration like "500ms" or "2s".');
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? "s") as "ms" | "s" | "m" | "h"];
  return Number(match[1]) * unit;
}

function arity(node: { fn: string; args: Node[] }, count: number): void {
  if (node.args.length !== count) throw new RunFilterError(`${node.fn}() takes ${count} argument(s).`);
}

/** `and(eq(metadata_key, "k"), eq(metadata_value, "v"))`: the metadata pair, or undefined if not one. */
function metadataPair(args: Node[]): RunFilter | undefined {
  if (args.length !== 2) return undefined;
  const [a, b] = args;
  const part = (node: Node | undefined, field: string) =>
    node?.n === "call" &&
    node.fn === "eq" &&
    node.args.length === 2 &&
    node.args[0]?.n === "ident" &&
    node.args[0].v.toLowerCase() === field
      ? node.args[1]
      : undefined;
  const key = part(a, "metadata_key") ?? part(b, "metadata_key");
  const value = part(a, "metadata_value") ?? part(b, "metadata_value");
  if (!key || !value) return undefined;
  const name = metadataKeyOf(key);
  const text = String(literalOf(value, "metadata_value"));
  const column = lookup(METADATA_COLUMNS, name);
  // The agent run's ids have columns of their own (indexed); any other key is read from the JSON.
  if (column) return { kind: "text", field: column, op: "eq", value: text };
  return { kind: "metadata", key: name, value: text };
}

function metadataKeyOf(node: Node | undefined): string {
  const name = textOf(node, "metadata_key");
  // Quotes would end the JSON path member the SQL builds; control characters have no use in a key.
  if (name === "" || name.length > 200 || [...name].some((c) => c === '"' || c === "\\" || c < " ")) {
    throw new RunFilterError("metadata_key must be 1-200 characters, without quotes or backslashes.");
  }
  return name;
}

function meaning(node: Node): RunFilter {
  if (node.n !== "call") throw new RunFilterError("Expected a function such as eq(field, value).");
  const { fn, args } = node;
  if (fn === "and" || fn === "or") {
    if (args.length === 0) throw new RunFilterError(`${fn}() takes at least one argument.`);
    const pair = fn === "and" ? metadataPair(args) : undefined;
    return pair ?? { kind: fn, items: args.map(meaning) };
  }
  if (fn === "not") {
    arity(node, 1);
    return { kind: "not", item: meaning(args[0] as Node) };
  }
  if (fn === "search") {
    arity(node, 1);
    return { kind: "search", text: textOf(args[0], "search()'s text") };
  }
  if (fn === "has") {
    arity(node, 2);
    const field = fieldOf(args[0], fn);
    if (field !== "tags") throw new RunFilterError(`has() supports tags; not ${field}.`);
    return { kind: "has_tag", tag: textOf(args[1], "The tag") };
  }
  if (fn === "in") {
    arity(node, 2);
    const field = fieldOf(args[0], fn);
    const column = lookup(TEXT_FIELDS, field);
    if (!column)
      throw new RunFilterError(`in() supports ${Object.keys(TEXT_FIELDS).join(", ")}; not ${field}.`);
    const list = args[1];
    if (list?.n !== "list") throw new RunFilterError("in() takes a list of values: in(field, [a, b]).");
    if (list.items.length > MAX_LIST) throw new RunFilterError(`in() takes at most ${MAX_LIST} values.`);
    return { kind: "in", field: column, values: list.items.map((item) => textOf(item, `${field}`)) };
  }
  if (!COMPARISONS.has(fn)) throw new RunFilterError(`Unsupported function ${fn}().`);
  arity(node, 2);
  const op = fn as Comparison;
  const field = fieldOf(args[0], fn);
  const equality = op === "eq" || op === "neq";
  const textColumn = lookup(TEXT_FIELDS, field);
  if (textColumn) {
    if (!equality) throw new RunFilterError(`${field} supports eq and neq.`);
    return { kind: "text", field: textColumn, op, value: textOf(args[1], field) };
  }
  if (field === "status") {
    if (!equality) throw new RunFilterError("status supports eq and neq.");
    const status = textOf(args[1], "status").toLowerCase();
    if (status !== "success" && status !== "error" && status !== "pending") {
      throw new RunFilterError('status is "success", "error" or "pending".');
    }
    return { kind: "status", status, negate: op === "neq" };
  }
  if (field === "is_root") {
    if (!equality) throw new RunFilterError("is_root supports eq and neq.");
    const value = literalOf(args[1], "is_root");
    const truth =
      value === true || value === "true" ? true : value === false || value === "false" ? false : null;
    if (truth === null) throw new RunFilterError("is_root is true or false.");
    return { kind: "is_root", value: op === "eq" ? truth : !truth };
  }
  const timeColumn = lookup(TIME_FIELDS, field);
  if (timeColumn) return { kind: "number", field: timeColumn, op, value: timeOf(args[1], field) };
  if (field === "latency") return { kind: "latency", op, ms: durationOf(args[1]) };
  const numberColumn = lookup(NUMBER_FIELDS, field);
  if (numberColumn) {
    const value = literalOf(args[1], field);
    const n = typeof value === "number" ? value : typeof value === "string" ? Number(value) : Number.NaN;
    if (!Number.isFinite(n)) throw new RunFilterError(`${field} must be a number.`);
    return { kind: "number", field: numberColumn, op, value: n };
  }
  if (field === "metadata_key" && op === "eq") return { kind: "metadata", key: metadataKeyOf(args[1]) };
  if (field === "metadata_key" || field === "metadata_value") {
    throw new RunFilterError(
      'Metadata filters take the pair and(eq(metadata_key, "…"), eq(metadata_value, "…")).',
    );
  }
  throw new RunFilterError(`Unsupported field ${field}.`);
}

/** Parses a filter expression; throws RunFilterError saying what is wrong or unsupported. */
export function parseRunFilter(source: string): RunFilter {
  if (source.length > MAX_FILTER_LENGTH) {
    throw new RunFilterError(`A filter is at most ${MAX_FILTER_LENGTH} characters.`);
  }
  return meaning(new Parser(tokenize(source)).parse());
}
