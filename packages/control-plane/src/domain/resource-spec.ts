import { BadRequestError, UnprocessableError } from "../errors.js";
import { ResourceSpecInput } from "../schemas/resource-spec.js";
import { kubernetesIssues } from "./kubernetes-rules.js";
import type { ResourceSpec } from "./types.js";

/** Where resource_spec sits in the create/PATCH/revision bodies (the `loc` of its 422s). */
export const RESOURCE_SPEC_LOC = ["body", "source_config", "resource_spec"] as const;

/** Values a ResourceSpec starts from when a client sends `{}` (what the real service echoes back). */
export const BASE_DEFAULTS = { min_scale: 1, max_scale: 1, cpu: 1, memory_mb: 2048 } as const;

const CPU_FIELDS = [
  "cpu",
  "cpu_limit",
  "queue_cpu",
  "queue_cpu_limit",
  "cache_cpu",
  "cache_cpu_limit",
  "db_cpu",
  "db_cpu_limit",
  "orchestrator_cpu",
  "orchestrator_cpu_limit",
  "executor_cpu",
  "executor_cpu_limit",
] as const;

/** Rounds cores to one decimal place, as the service does. */
export function roundCpu(value: number): number {
  return Math.round(value * 10) / 10;
}

const twice = (value: number | null, max = Number.POSITIVE_INFINITY): number | null =>
  value === null ? null : Math.min(value * 2, max);

/**
 * The fields the spec's table gives a default computed from other fields, in the order they are
 * computed (a queue limit follows the queue request, which follows the API server's).
 */
export const DERIVED_FIELDS = [
  "cpu_limit",
  "memory_limit_mb",
  "queue_min_scale",
  "queue_max_scale",
  "queue_cpu",
  "queue_cpu_limit",
  "queue_memory_mb",
  "queue_memory_limit_mb",
  "cache_cpu_limit",
  "cache_memory_limit_mb",
  "db_cpu_limit",
  "db_memory_limit_mb",
] as const satisfies ReadonlyArray<keyof ResourceSpec>;

/**
 * Validates a resource_spec as sent and gives the one stored and answered: every field present,
 * CPU rounded, the base values (`BASE_DEFAULTS`) filled in as the real service echoes them, and
 * the derived fields (`DERIVED_FIELDS`) left as sent, null unless the client chose a value. They
 * are computed where they are used (`effectiveResourceSpec`), so a client that reads a deployment,
 * raises `cpu` and sends the object back gets limits and queue sizes that follow the new values
 * instead of the old ones echoed (docs/decisions.md). Throws BadRequestError (400) on a rule across
 * fields (a request above its limit, default or not), UnprocessableError (422, with each field's
 * path) on what a Kubernetes API server would refuse (domain/kubernetes-rules.ts).
 */
export function normalizeResourceSpec(input: ResourceSpecInput): ResourceSpec {
  const spec = {} as Record<string, unknown>;
  for (const key of Object.keys(ResourceSpecInput.shape)) {
    spec[key] = (input as Record<string, unknown>)[key] ?? null;
  }
  for (const key of CPU_FIELDS) {
    const value = spec[key];
    if (typeof value === "number") spec[key] = roundCpu(value);
  }
  const s = spec as ResourceSpec;
  s.min_scale ??= BASE_DEFAULTS.min_scale;
  s.max_scale ??= Math.max(BASE_DEFAULTS.max_scale, s.min_scale);
  s.cpu ??= BASE_DEFAULTS.cpu;
  s.memory_mb ??= BASE_DEFAULTS.memory_mb;
  const effective = effectiveResourceSpec(s);
  checkResourceSpec(effective);
  const issues = kubernetesIssues(effective);
  if (issues.length > 0) {
    throw new UnprocessableError(
      issues.map((i) => ({ loc: [...RESOURCE_SPEC_LOC, ...i.path], msg: i.msg, type: i.type })),
    );
  }
  return s;
}

/**
 * What a stored spec means: the spec's defaults applied to every derived field left null (limits
 * twice the request, capped at 16 cores; queue values follow the API server's; the cache memory
 * limit equals its request; database limits twice). What the listener renders and the local
 * runtime applies.
 */
export function effectiveResourceSpec(spec: ResourceSpec): ResourceSpec {
  const s = { ...spec };
  s.cpu_limit ??= twice(s.cpu, 16);
  s.memory_limit_mb ??= twice(s.memory_mb);
  s.queue_min_scale ??= s.min_scale;
  s.queue_max_scale ??= s.max_scale;
  s.queue_cpu ??= s.cpu;
  s.queue_cpu_limit ??= twice(s.queue_cpu, 16);
  s.queue_memory_mb ??= s.memory_mb;
  s.queue_memory_limit_mb ??= twice(s.queue_memory_mb);
  s.cache_cpu_limit ??= twice(s.cache_cpu, 16);
  s.cache_memory_limit_mb ??= s.cache_memory_mb;
  s.db_cpu_limit ??= twice(s.db_cpu);
  s.db_memory_limit_mb ??= twice(s.db_memory_mb);
  return s;
}

/**
 * A spec stored before derived fields were left to `effectiveResourceSpec` (every default written
 * out) in today's form: a derived value that equals what its default would be becomes null again.
 * The meaning is unchanged (the effective spec is the same); a value the user chose equal to its
 * default cannot be told apart and follows its source from then on. Used once, by a migration.
 */
export function withoutDerivedDefaults(stored: ResourceSpec): ResourceSpec {
  const declared = { ...stored };
  for (const field of DERIVED_FIELDS) (declared as Record<string, unknown>)[field] = null;
  for (const field of DERIVED_FIELDS) {
    if (stored[field] !== effectiveResourceSpec(declared)[field]) {
      (declared as Record<string, unknown>)[field] = stored[field];
    }
  }
  return declared;
}

function atMost(low: number | null, high: number | null, lowName: string, highName: string): void {
  if (low !== null && high !== null && low > high) {
    throw new BadRequestError(
      `resource_spec.${lowName} (${low}) must not exceed resource_spec.${highName} (${high}).`,
    );
  }
}

/** Rules across fields: ranges ordered, limits at least the requests. */
function checkResourceSpec(s: ResourceSpec): void {
  atMost(s.min_scale, s.max_scale, "min_scale", "max_scale");
  atMost(s.queue_min_scale, s.queue_max_scale, "queue_min_scale", "queue_max_scale");
  atMost(s.cpu, s.cpu_limit, "cpu", "cpu_limit");
  atMost(s.memory_mb, s.memory_limit_mb, "memory_mb", "memory_limit_mb");
  atMost(s.queue_cpu, s.queue_cpu_limit, "queue_cpu", "queue_cpu_limit");
  atMost(s.queue_memory_mb, s.queue_memory_limit_mb, "queue_memory_mb", "queue_memory_limit_mb");
  atMost(s.cache_cpu, s.cache_cpu_limit, "cache_cpu", "cache_cpu_limit");
  atMost(s.cache_memory_mb, s.cache_memory_limit_mb, "cache_memory_mb", "cache_memory_limit_mb");
  atMost(s.db_cpu, s.db_cpu_limit, "db_cpu", "db_cpu_limit");
  atMost(s.db_memory_mb, s.db_memory_limit_mb, "db_memory_mb", "db_memory_limit_mb");
}
