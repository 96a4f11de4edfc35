import path from "node:path";

/** Groups of core routes a project may turn off (`http.disable_*`). */
export interface DisabledRoutes {
  assistants: boolean;
  threads: boolean;
  /** Runs, their streams, and crons (`/runs/crons` belongs to the runs API). */
  runs: boolean;
  store: boolean;
  /** `/info`, `/metrics`, `/docs`; `/ok` stays, as the platform's health checks need it. */
  meta: boolean;
  ui: boolean;
}

/** Which request headers runs get in `configurable` (`http.configurable_headers`). */
export interface HeaderPolicy {
  /** Patterns (literals and `*`); null: the default, `x-*` and `user-agent`. */
  include: RegExp[] | null;
  exclude: RegExp[];
}

/** The parts of a graph configuration's `http` block other than `cors`. */
export interface ProjectHttpConfig {
  /** `http.app`: the project's own HTTP app (a Hono app), module path and export. */
  app: { modulePath: string; exportName: string } | null;
  disabled: DisabledRoutes;
  headers: HeaderPolicy | null;
  /** Keys of `http` that Berth does not act on, with the reason (reported at start-up). */
  unsupported: string[];
}

/** `http` keys read elsewhere or here. */
const KNOWN = new Set([
  "app",
  "cors",
  "configurable_headers",
  "disable_assistants",
  "disable_threads",
  "disable_runs",
  "disable_store",
  "disable_meta",
  "disable_ui",
  // Berth serves no MCP or A2A endpoint: disabling them is already true.
  "disable_mcp",
  "disable_a2a",
]);

/** A header pattern: literal characters and `*` only (as the official servers allow, no regex). */
function headerPattern(pattern: string): RegExp {
  const body = pattern
    .toLowerCase()
    .split("*")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${body}$`, "s");
}

/** Reads `http` (without `cors`) of a graph configuration; paths resolve against the project. */
export function parseProjectHttp(
  http: unknown,
  projectDir: string,
  fail: (reason: string) => never,
): ProjectHttpConfig {
  const disabled: DisabledRoutes = {
    assistants: false,
    threads: false,
    runs: false,
    store: false,
    meta: false,
    ui: false,
  };
  if (http === undefined || http === null) return { app: null, disabled, headers: null, unsupported: [] };
  if (typeof http !== "object" || Array.isArray(http)) fail('"http" must be an object');
  const raw = http as Record<string, unknown>;

  for (const key of Object.keys(disabled) as Array<keyof DisabledRoutes>) {
    const value = raw[`disable_${key}`];
    if (value === undefined || value === null) continue;
    if (typeof value !== "boolean") fail(`"http.disable_${key}" must be a boolean`);
    disabled[key] = value as boolean;
  }
  const unsupported: string[] = [];
  for (const key of ["disable_mcp", "disable_a2a"]) {
    if (raw[key] === false)
      unsupported.push(`http.${key} (Berth serves no ${key.slice(8).toUpperCase()} endpoint)`);
  }
  for (const key of Object.keys(raw)) {
    if (!KNOWN.has(key)) unsupported.push(`http.${key}`);
  }

  let app: ProjectHttpConfig["app"] = null;
  if (raw.app !== undefined && raw.app !== null) {
    if (typeof raw.app !== "string" || raw.app.trim() === "")
      fail('"http.app" must be "./path/to/app.ts:export"');
    const spec = raw.app as string;
    const colon = spec.lastIndexOf(":");
    const hasExport = colon > 0 && /^[A-Za-z_$][\w$]*$/.test(spec.slice(colon + 1));
    app = {
      modulePath: path.resolve(projectDir, hasExport ? spec.slice(0, colon) : spec),
      exportName: hasExport ? spec.slice(colon + 1) : "default",
    };
  }

  let headers: HeaderPolicy | null = null;
  const ch = raw.configurable_headers;
  if (ch !== undefined && ch !== null) {
    if (typeof ch !== "object" || Array.isArray(ch)) fail('"http.configurable_headers" must be an object');
    const c = ch as Record<string, unknown>;
    const list = (name: string): string[] | null => {
      // The documentation writes include/exclude, the configuration schema includes/excludes: both read.
      const value = c[name] ?? c[`${name}s`];
      if (value === undefined || value === null) return null;
      if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
        fail(`"http.configurable_headers.${name}" must be an array of strings`);
      }
      return value as string[];
    };
    const include = list("include");
    headers = {
      include: include ? include.map(headerPattern) : null,
      exclude: (list("exclude") ?? []).map(headerPattern),
    };
  }
  return { app, disabled, headers, unsupported };
}

/** Headers that are credentials or routing, never copied into a run's configurable. */
const PRIVATE_HEADERS = new Set(["x-api-key", "x-tenant-id", "x-service-key", "x-berth-agent-token"]);

/**
 * Whether a request header goes into a run's `configurable`: never credentials; then exclusions
 * first, then the inclusions when given, else the official default (`x-*` and `user-agent`).
 */
export function headerIncluded(policy: HeaderPolicy | null, name: string): boolean {
  const key = name.toLowerCase();
  if (PRIVATE_HEADERS.has(key)) return false;
  if (policy?.exclude.some((p) => p.test(key))) return false;
  if (policy?.include) return policy.include.some((p) => p.test(key));
  return key.startsWith("x-") || key === "user-agent";
}
