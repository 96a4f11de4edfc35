/**
 * Input aliases: the real service's names, accepted so existing clients (`langgraph deploy`, the
 * Terraform provider, CI scripts) work unchanged. Renaming happens before validation, so error
 * locations and everything stored use the canonical names. When both spellings are sent, the
 * canonical one wins.
 */

const SOURCE_ALIASES: Readonly<Record<string, string>> = {
  github: "repo_host",
  external_docker: "external_container",
  internal_docker: "internal_container",
};

const RESOURCE_SPEC_ALIASES: Readonly<Record<string, string>> = {
  redis_cpu: "cache_cpu",
  redis_cpu_limit: "cache_cpu_limit",
  redis_memory_mb: "cache_memory_mb",
  redis_memory_limit_mb: "cache_memory_limit_mb",
};

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function renameKeys(value: unknown, aliases: Readonly<Record<string, string>>): unknown {
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) {
    const canonical = aliases[key];
    if (canonical === undefined) out[key] = v;
    else if (!(canonical in value)) out[canonical] = v;
  }
  return out;
}

/** Maps an alias source name (`github`…) to the canonical one; other values pass unchanged. */
export function canonicalSource(value: unknown): unknown {
  return typeof value === "string" ? (SOURCE_ALIASES[value] ?? value) : value;
}

/** Returns a copy of a create/PATCH/revision body with every alias renamed to its canonical name. */
export function normalizeAliases(body: unknown): unknown {
  if (!isObject(body)) return body;
  const out: Json = { ...body };
  if ("source" in out) out.source = canonicalSource(out.source);
  if ("revision_source" in out) out.revision_source = canonicalSource(out.revision_source);
  const revision = renameKeys(out.source_revision_config, { langgraph_config_path: "graph_config_path" });
  if (revision !== undefined) out.source_revision_config = revision;
  if (isObject(out.source_config)) {
    const config: Json = { ...out.source_config };
    if ("resource_spec" in config)
      config.resource_spec = renameKeys(config.resource_spec, RESOURCE_SPEC_ALIASES);
    if ("listener_config" in config) {
      config.listener_config = renameKeys(config.listener_config, { k8s_namespace: "cluster_namespace" });
    }
    out.source_config = config;
  }
  return out;
}

/**
 * The vocabulary a deployment was created in: `neutral` (this API's names) or `real` (the
 * LangSmith service's names). Responses about a deployment answer in it, so clients that read
 * back what they wrote (the Terraform provider compares `source`) see no drift.
 */
export type Vocabulary = "neutral" | "real";

const REAL_SOURCES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(SOURCE_ALIASES).map(([real, neutral]) => [neutral, real]),
);

function hasAnyKey(value: unknown, keys: readonly string[]): boolean {
  return isObject(value) && keys.some((key) => key in value);
}

/** Whether a request body spells anything with one of the real service's names (before renaming). */
export function vocabularyOf(body: unknown): Vocabulary {
  if (!isObject(body)) return "neutral";
  const sources = [body.source, body.revision_source];
  if (sources.some((s) => typeof s === "string" && s in SOURCE_ALIASES)) return "real";
  if (hasAnyKey(body.source_revision_config, ["langgraph_config_path"])) return "real";
  const config = body.source_config;
  if (!isObject(config)) return "neutral";
  if (hasAnyKey(config.resource_spec, Object.keys(RESOURCE_SPEC_ALIASES))) return "real";
  return hasAnyKey(config.listener_config, ["k8s_namespace"]) ? "real" : "neutral";
}

function renameOut(value: unknown, canonicalToReal: Readonly<Record<string, string>>): unknown {
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [canonicalToReal[key] ?? key, v]));
}

const REAL_RESOURCE_SPEC: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(RESOURCE_SPEC_ALIASES).map(([real, neutral]) => [neutral, real]),
);

/**
 * The real service's name of a canonical source (`repo_host` → `github`…); others pass unchanged.
 * Typed as its input: the response schemas (kept for OpenAPI) list the neutral names only.
 */
export function realSource<T extends string>(source: T): T {
  return (REAL_SOURCES[source] ?? source) as T;
}

/** A response's `source_revision_config` in the real service's names. */
export function realRevisionConfig<T>(config: T): T {
  return renameOut(config, { graph_config_path: "langgraph_config_path" }) as T;
}

/** A response's `source_config` in the real service's names (resource spec and listener config). */
export function realSourceConfig<T>(config: T): T {
  if (!isObject(config)) return config;
  const out: Json = { ...config };
  if ("resource_spec" in out) out.resource_spec = renameOut(out.resource_spec, REAL_RESOURCE_SPEC);
  if ("listener_config" in out) {
    out.listener_config = renameOut(out.listener_config, { cluster_namespace: "k8s_namespace" });
  }
  return out as T;
}
