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
