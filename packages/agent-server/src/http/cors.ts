import type { FastifyCorsOptions } from "@fastify/cors";

/**
 * The `http.cors` block of a graph configuration, with the fields the official LangGraph.js server
 * reads (libs/langgraph-api, `http/middleware.mts`): snake_case in the file, camelCase here.
 */
export interface HttpCorsConfig {
  allowOrigins: string[];
  allowOriginRegex: string | null;
  allowMethods: string[] | null;
  allowHeaders: string[] | null;
  allowCredentials: boolean;
  exposeHeaders: string[];
  maxAge: number | null;
}

/** Headers the SDK must read cross-origin (stream resume, pagination): always exposed. */
const ALWAYS_EXPOSED = ["content-location", "x-pagination-total"];
/** The methods allowed when `allow_methods` is absent (the official server's CORS default). */
const DEFAULT_METHODS = ["GET", "HEAD", "PUT", "POST", "DELETE", "PATCH"];

function stringList(value: unknown, name: string, fail: (reason: string) => never): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    fail(`"http.cors.${name}" must be an array of strings`);
  }
  return value as string[];
}

/**
 * Reads `http.cors` from the raw `http` value of a graph configuration; null when the file has
 * none (the server is then open to every origin, as the official server is by default).
 */
export function parseHttpCors(http: unknown, fail: (reason: string) => never): HttpCorsConfig | null {
  if (http === undefined || http === null) return null;
  if (typeof http !== "object" || Array.isArray(http)) fail('"http" must be an object');
  const raw = (http as Record<string, unknown>).cors;
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== "object" || Array.isArray(raw)) fail('"http.cors" must be an object');
  const cors = raw as Record<string, unknown>;
  const regex = cors.allow_origin_regex;
  if (regex !== undefined && regex !== null) {
    if (typeof regex !== "string") fail('"http.cors.allow_origin_regex" must be a string');
    try {
      new RegExp(regex as string);
    } catch (error) {
      fail(`"http.cors.allow_origin_regex" is not a valid regular expression (${(error as Error).message})`);
    }
  }
  const credentials = cors.allow_credentials;
  if (credentials !== undefined && credentials !== null && typeof credentials !== "boolean") {
    fail('"http.cors.allow_credentials" must be a boolean');
  }
  const maxAge = cors.max_age;
  if (maxAge !== undefined && maxAge !== null && (!Number.isInteger(maxAge) || (maxAge as number) < 0)) {
    fail('"http.cors.max_age" must be a whole number of seconds');
  }
  return {
    allowOrigins: stringList(cors.allow_origins, "allow_origins", fail) ?? [],
    allowOriginRegex: typeof regex === "string" ? regex : null,
    allowMethods: stringList(cors.allow_methods, "allow_methods", fail),
    allowHeaders: stringList(cors.allow_headers, "allow_headers", fail),
    allowCredentials: credentials === true,
    exposeHeaders: stringList(cors.expose_headers, "expose_headers", fail) ?? [],
    maxAge: typeof maxAge === "number" ? maxAge : null,
  };
}

function withAlwaysExposed(headers: string[]): string[] {
  const have = new Set(headers.map((h) => h.toLowerCase()));
  return [...headers, ...ALWAYS_EXPOSED.filter((h) => !have.has(h))];
}

/**
 * Options for @fastify/cors from a project's `http.cors` (null: any origin, as the official
 * server's default). A listed `*` allows every origin (as the Python server reads it); with
 * credentials the request's origin is echoed instead, since browsers refuse `*` with credentials.
 */
export function corsPluginOptions(config: HttpCorsConfig | null): FastifyCorsOptions {
  // Any OPTIONS is a preflight, as in the official server (no 400 for a bare OPTIONS).
  const base = { strictPreflight: false, methods: DEFAULT_METHODS } satisfies FastifyCorsOptions;
  if (config === null) return { ...base, origin: "*", exposedHeaders: ALWAYS_EXPOSED };
  const regex = config.allowOriginRegex === null ? null : new RegExp(config.allowOriginRegex);
  const anyOrigin = config.allowOrigins.includes("*");
  let origin: FastifyCorsOptions["origin"];
  if (regex)
    origin = (requestOrigin, cb) => cb(null, requestOrigin !== undefined && regex.test(requestOrigin));
  else if (anyOrigin) origin = config.allowCredentials ? true : "*";
  else origin = config.allowOrigins;
  return {
    ...base,
    origin,
    methods: config.allowMethods ?? DEFAULT_METHODS,
    ...(config.allowHeaders ? { allowedHeaders: config.allowHeaders } : {}),
    credentials: config.allowCredentials,
    exposedHeaders: withAlwaysExposed(config.exposeHeaders),
    ...(config.maxAge !== null ? { maxAge: config.maxAge } : {}),
  };
}
