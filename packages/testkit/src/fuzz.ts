// Building blocks of the malformed-input fuzz tests of both services.

/** A small deterministic PRNG (mulberry32), so a failure reproduces from its seed. */
export function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One element of `list`, chosen by `rand`. */
export function pick<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)] as T;
}

/** A route of a Fastify app: method and path pattern (`:param`, `*`). */
export interface RouteInfo {
  method: string;
  path: string;
}

/**
 * Every route of a Fastify app, read from `app.printRoutes({ commonPrefix: false })` (Fastify has
 * no list API): each line of the tree adds its segment to its parent's path.
 */
export function routesOf(printed: string): RouteInfo[] {
  const routes: RouteInfo[] = [];
  const stack: string[] = [];
  for (const line of printed.split("\n")) {
    const at = line.search(/[├└]── /);
    if (at < 0) continue;
    const depth = Math.round(at / 4);
    const rest = line.slice(at + 4);
    const match = rest.match(/^(.*?)(?: \(([A-Z, ]+)\))?$/);
    const segment = match?.[1] ?? "";
    const full = `${depth > 0 ? (stack[depth - 1] ?? "") : ""}${segment}`;
    stack[depth] = full;
    stack.length = depth + 1;
    for (const method of (match?.[2] ?? "").split(",").map((m) => m.trim())) {
      if (method && method !== "HEAD" && method !== "OPTIONS") routes.push({ method, path: full });
    }
  }
  return routes;
}

/** JSON values that break naive handlers: types, sizes, NUL, prototype keys, deep nesting. */
export const ODD_VALUES: readonly unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1e308,
  -0.0001,
  2 ** 53 + 1,
  "",
  " ",
  "x".repeat(5000),
  "../../etc/passwd",
  "\u0000",
  "é",
  "%00",
  "00000000-0000-4000-8000-000000000000",
  "not-a-uuid",
  [],
  [null],
  {},
  { __proto__: 1 },
  { constructor: { prototype: {} } },
  [{ name: "A", value: "b" }],
];

/** Replaces, adds or deletes something at a random place of a JSON value. */
export function mutate(rand: () => number, value: unknown, extraKeys: readonly string[], depth = 0): unknown {
  if (depth > 4 || rand() < 0.25) return pick(rand, ODD_VALUES);
  if (Array.isArray(value)) {
    if (value.length === 0) return [pick(rand, ODD_VALUES)];
    const copy = [...value];
    const i = Math.floor(rand() * copy.length);
    copy[i] = mutate(rand, copy[i], extraKeys, depth + 1);
    return copy;
  }
  if (value && typeof value === "object") {
    const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    const keys = Object.keys(copy);
    const r = rand();
    if (r < 0.15 && keys.length) delete copy[pick(rand, keys)];
    else if (r < 0.3) copy[pick(rand, extraKeys)] = pick(rand, ODD_VALUES);
    else if (keys.length) {
      const k = pick(rand, keys);
      copy[k] = mutate(rand, copy[k], extraKeys, depth + 1);
    }
    return copy;
  }
  return pick(rand, ODD_VALUES);
}

/** A raw body that is not what a JSON parser wants: truncated, deep, huge numbers, odd bytes. */
export function malformedBody(rand: () => number): string {
  return pick(rand, [
    '{"unterminated": [1, 2',
    `${"[".repeat(6000)}${"]".repeat(6000)}`,
    `{"a":${'{"a":'.repeat(3000)}1${"}".repeat(3001)}`,
    '{"__proto__": {"polluted": true}}',
    '{"constructor": {"prototype": {"polluted": true}}}',
    "\u0000\u0001\u0002",
    "null",
    "[]",
    '"just a string"',
    "1e999999",
    '{"a": "\\ud800"}',
    "{}".repeat(1000),
  ]);
}
