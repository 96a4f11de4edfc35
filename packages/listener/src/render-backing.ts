// A deployment's own PostgreSQL and Redis (unless it points at external ones), their Services,
// and NetworkPolicies that let only the deployment's API and queue pods reach them.
import { createHmac } from "node:crypto";
import { LABELS, objectName } from "./names.js";
import {
  labelsOf,
  metadata,
  resources,
  restrictedContainer,
  restrictedPod,
  selector,
} from "./render-common.js";
import type { DesiredRevision, KubeObject, RenderOptions } from "./types.js";

/** UID (and GID) of the service user in the official postgres and redis images (Debian-based). */
const BACKING_UID = 999;
/** The database volume's size when resource_spec.db_storage_gi is null (the CRD's default). */
export const DEFAULT_STORAGE_GI = 10;
/** The StatefulSet's claim template: its claims are `data-<StatefulSet>-<ordinal>`. */
export const CLAIM_TEMPLATE = "data";
/** Key of the Redis password in the deployment's Secret (not an env name, so no user secret collides). */
export const REDIS_PASSWORD_KEY = "berth.redis-password";

/** Secrets (or secret references) naming an external PostgreSQL / Redis (the real service's names). */
export const EXTERNAL_URI = { postgres: "POSTGRES_URI_CUSTOM", redis: "REDIS_URI_CUSTOM" } as const;

/** Where the deployment's DATABASE_URI / REDIS_URI come from: its own Secret's key, or a referenced one. */
export function uriSource(
  rev: DesiredRevision,
  service: "postgres" | "redis",
): { name: string; key: string } {
  const custom = EXTERNAL_URI[service];
  const reference = rev.secret_references.find((r) => r.name === custom);
  if (reference) return { name: reference.secret_name, key: reference.secret_key };
  const own = objectName(rev, "secrets");
  if (rev.secrets.some((s) => s.name === custom)) return { name: own, key: custom };
  return { name: own, key: service === "postgres" ? "DATABASE_URI" : "REDIS_URI" };
}

/** Whether the deployment runs its own `service` in the cluster (no external URI given). */
export function inCluster(rev: DesiredRevision, service: "postgres" | "redis"): boolean {
  const custom = EXTERNAL_URI[service];
  return !rev.secrets.some((s) => s.name === custom) && !rev.secret_references.some((r) => r.name === custom);
}

/** The Redis password: derived from the database password (itself a per-deployment secret), so it stays pure. */
export function redisPassword(rev: DesiredRevision): string {
  return createHmac("sha256", rev.database_password).update("berth redis password").digest("base64url");
}

function statefulSet(
  rev: DesiredRevision,
  component: "redis" | "postgres",
  container: Record<string, unknown>,
  options: RenderOptions,
  storageGi: number | null,
): KubeObject {
  const name = objectName(rev, component);
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: metadata(rev, name, component),
    spec: {
      serviceName: name,
      replicas: 1,
      selector: { matchLabels: selector(rev, component) },
      template: {
        metadata: labelsOf(rev, component, false),
        spec: {
          securityContext: restrictedPod(BACKING_UID),
          ...(options.imagePullSecrets.length > 0
            ? { imagePullSecrets: options.imagePullSecrets.map((n) => ({ name: n })) }
            : {}),
          containers: [{ ...container, securityContext: restrictedContainer() }],
        },
      },
      ...(storageGi !== null
        ? {
            // The claim goes with the deployment; the listener expands it when db_storage_gi grows.
            persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" },
            volumeClaimTemplates: [
              {
                metadata: { name: CLAIM_TEMPLATE },
                spec: {
                  accessModes: ["ReadWriteOnce"],
                  resources: { requests: { storage: `${storageGi}Gi` } },
                },
              },
            ],
          }
        : {}),
    },
  };
}

function service(rev: DesiredRevision, component: "postgres" | "redis", port: number): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: metadata(rev, objectName(rev, component), component),
    spec: { selector: selector(rev, component), ports: [{ name: "tcp", port, targetPort: port }] },
  };
}

/** Ingress to `component` only from this deployment's API and queue pods, on its port. */
function networkPolicy(rev: DesiredRevision, component: "postgres" | "redis", port: number): KubeObject {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: metadata(rev, objectName(rev, component), component),
    spec: {
      podSelector: { matchLabels: selector(rev, component) },
      policyTypes: ["Ingress"],
      ingress: [
        {
          from: [
            {
              podSelector: {
                matchLabels: { [LABELS.deployment]: rev.deployment_id },
                matchExpressions: [{ key: LABELS.component, operator: "In", values: ["api", "queue"] }],
              },
            },
          ],
          ports: [{ protocol: "TCP", port }],
        },
      ],
    },
  };
}

function postgres(rev: DesiredRevision, options: RenderOptions): KubeObject {
  const s = rev.resource_spec;
  return statefulSet(
    rev,
    "postgres",
    {
      name: "postgres",
      image: options.postgresImage,
      args: ["-c", `max_connections=${s.db_max_connections ?? 100}`],
      env: [
        {
          name: "POSTGRES_PASSWORD",
          valueFrom: { secretKeyRef: { name: objectName(rev, "secrets"), key: "POSTGRES_PASSWORD" } },
        },
        { name: "PGDATA", value: "/var/lib/postgresql/data/pgdata" },
      ],
      ports: [{ name: "postgres", containerPort: 5432 }],
      resources: resources(s.db_cpu, s.db_cpu_limit, s.db_memory_mb, s.db_memory_limit_mb),
      volumeMounts: [{ name: CLAIM_TEMPLATE, mountPath: "/var/lib/postgresql/data" }],
    },
    options,
    s.db_storage_gi ?? DEFAULT_STORAGE_GI,
  );
}

function redis(rev: DesiredRevision, options: RenderOptions): KubeObject {
  const s = rev.resource_spec;
  return statefulSet(
    rev,
    "redis",
    {
      name: "redis",
      image: options.redisImage,
      // The kubelet expands $(REDIS_PASSWORD) from the env; no shell sees the password.
      args: ["--requirepass", "$(REDIS_PASSWORD)"],
      env: [
        {
          name: "REDIS_PASSWORD",
          valueFrom: { secretKeyRef: { name: objectName(rev, "secrets"), key: REDIS_PASSWORD_KEY } },
        },
      ],
      ports: [{ name: "redis", containerPort: 6379 }],
      resources: resources(s.cache_cpu, s.cache_cpu_limit, s.cache_memory_mb, s.cache_memory_limit_mb),
    },
    options,
    null,
  );
}

/** The Secret keys the in-cluster services need (password, URIs); nothing for an external one. */
export function backingSecretData(rev: DesiredRevision): Record<string, string> {
  const data: Record<string, string> = {};
  if (inCluster(rev, "postgres")) {
    data.POSTGRES_PASSWORD = rev.database_password;
    data.DATABASE_URI = `postgres://postgres:${encodeURIComponent(rev.database_password)}@${objectName(rev, "postgres")}:5432/postgres`;
  }
  if (inCluster(rev, "redis")) {
    const password = redisPassword(rev);
    data[REDIS_PASSWORD_KEY] = password;
    data.REDIS_URI = `redis://:${encodeURIComponent(password)}@${objectName(rev, "redis")}:6379`;
  }
  return data;
}

/** The deployment's in-cluster Postgres and Redis, each with its Service and NetworkPolicy. */
export function renderBacking(rev: DesiredRevision, options: RenderOptions): KubeObject[] {
  return [
    ...(inCluster(rev, "postgres")
      ? [postgres(rev, options), service(rev, "postgres", 5432), networkPolicy(rev, "postgres", 5432)]
      : []),
    ...(inCluster(rev, "redis")
      ? [redis(rev, options), service(rev, "redis", 6379), networkPolicy(rev, "redis", 6379)]
      : []),
  ];
}
