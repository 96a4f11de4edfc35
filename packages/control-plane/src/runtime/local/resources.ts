import { effectiveResourceSpec } from "../../domain/resource-spec.js";
import type { ResourceSpec } from "../../domain/types.js";

/** Share of the memory limit given to the V8 heap; the rest is Node's own and native memory. */
const HEAP_SHARE = 0.75;

/** What the local runtime makes of a resource spec. */
export interface LocalResources {
  /** `--max-old-space-size` of the agent server, in MB (null: Node's default). */
  heapMb: number | null;
  /** A line for the revision's deploy log: what was applied and what this runtime ignores. */
  summary: string;
}

/**
 * The part of `resource_spec` one local process can honour: the memory limit, as its heap limit.
 * Scale, CPU, and the queue/cache/database sizes only mean something on Kubernetes: they are
 * named in the deploy log as ignored, never dropped silently.
 */
export function planLocalResources(stored: ResourceSpec | null): LocalResources {
  if (!stored) return { heapMb: null, summary: "No resource_spec: Node's default heap limit." };
  const spec = effectiveResourceSpec(stored);
  const limit = spec.memory_limit_mb ?? spec.memory_mb;
  const heapMb = limit ? Math.max(64, Math.floor(limit * HEAP_SHARE)) : null;
  const ignored = Object.entries(spec)
    .filter(([key, value]) => key !== "memory_mb" && key !== "memory_limit_mb" && value !== null)
    .map(([key, value]) => `${key}=${typeof value === "object" ? JSON.stringify(value) : String(value)}`);
  const applied = heapMb
    ? `resource_spec: memory_limit_mb=${limit} applied as a ${heapMb} MB heap limit (--max-old-space-size).`
    : "resource_spec: no memory limit given: Node's default heap limit.";
  return {
    heapMb,
    summary: ignored.length
      ? `${applied} Ignored by the local runtime (one process; no CPU limits, scaling, or separate queue, cache and database): ${ignored.join(", ")}.`
      : applied,
  };
}
