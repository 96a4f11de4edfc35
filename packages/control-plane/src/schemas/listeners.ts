import { z } from "zod";
import type { Vocabulary } from "./aliases.js";
import { DnsLabel } from "./kubernetes.js";

/** The namespaces a listener serves (null: not restricted). */
export const ListenerComputeConfig = z.object({
  cluster_namespaces: z.array(DnsLabel).max(100).nullish(),
});

const Version = z.string().min(1).max(100).nullish();

/** `POST /v2/listeners`. */
export const ListenerCreateRequest = z.object({
  compute_type: z.literal("cluster"),
  compute_id: z
    .string()
    .min(1)
    .max(253)
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
      "letters, digits, '.', '_' and '-', starting with a letter or digit",
    ),
  compute_config: ListenerComputeConfig,
  version: Version,
});
export type ListenerCreateRequest = z.infer<typeof ListenerCreateRequest>;

/** `PATCH /v2/listeners/{id}`: compute_type and compute_id are immutable. */
export const ListenerPatchRequest = z.object({
  compute_config: ListenerComputeConfig.nullish(),
  version: Version,
  compute_type: z.unknown().optional(),
  compute_id: z.unknown().optional(),
});
export type ListenerPatchRequest = z.infer<typeof ListenerPatchRequest>;

/** A listener as the API returns it. */
export const ListenerOut = z.object({
  id: z.string(),
  version: z.string().nullable(),
  compute_type: z.literal("cluster"),
  compute_id: z.string(),
  compute_config: z.object({ cluster_namespaces: z.array(z.string()).nullable() }),
  created_at: z.string(),
  updated_at: z.string(),
  /** Berth: when the listener last polled, and whether it still does (within the timeout). */
  last_seen_at: z.string().nullable(),
  status: z.enum(["CONNECTED", "DISCONNECTED"]),
});

/** A listener just created (or its key rotated): the key, shown this once. */
export const ListenerWithKeyOut = ListenerOut.extend({ listener_key: z.string() });

/** `POST /v2/listeners/{id}/deployments/{d}/revisions/{r}/status`: the listener's report. */
export const RevisionReportRequest = z.object({
  status: z.enum(["DEPLOYING", "DEPLOYED", "DEPLOY_FAILED"]),
  reason: z.string().max(16_384).nullish(),
  url: z.url().max(2048).nullish(),
});

/** `POST /v2/listeners/{id}/deployments/{d}/revisions/{r}/logs`: deploy-log lines. */
export const ListenerLogsRequest = z.object({
  lines: z
    .array(
      z.object({
        timestamp: z.number().int().min(0).optional(),
        level: z.enum(["DEBUG", "INFO", "WARNING", "ERROR"]).optional(),
        message: z.string().max(16_384),
      }),
    )
    .max(500),
});

/** The real service's names for a listener's fields: `k8s` → `cluster`, `k8s_namespaces` → `cluster_namespaces`. */
export function canonicalListener(body: unknown): unknown {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return body;
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  if (out.compute_type === "k8s") out.compute_type = "cluster";
  const config = out.compute_config;
  if (config !== null && typeof config === "object" && !Array.isArray(config)) {
    const c = { ...(config as Record<string, unknown>) };
    if ("k8s_namespaces" in c && !("cluster_namespaces" in c)) c.cluster_namespaces = c.k8s_namespaces;
    delete c.k8s_namespaces;
    out.compute_config = c;
  }
  return out;
}

/** Whether a listener body spells its type or namespaces with the real service's names (before renaming). */
export function listenerVocabularyOf(body: unknown): Vocabulary {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return "neutral";
  const b = body as Record<string, unknown>;
  if (b.compute_type === "k8s") return "real";
  const config = b.compute_config;
  const real =
    config !== null && typeof config === "object" && !Array.isArray(config) && "k8s_namespaces" in config;
  return real ? "real" : "neutral";
}

/**
 * A listener answer in the real service's names (`compute_type: "k8s"`,
 * `compute_config.k8s_namespaces`, which the official CLIs read). Typed as its input: the response
 * schemas (kept for OpenAPI) list the neutral names only.
 */
export function realListener<
  T extends { compute_type: string; compute_config: { cluster_namespaces: unknown } },
>(listener: T): T {
  const { cluster_namespaces, ...config } = listener.compute_config;
  return {
    ...listener,
    compute_type: "k8s",
    compute_config: { ...config, k8s_namespaces: cluster_namespaces },
  };
}
