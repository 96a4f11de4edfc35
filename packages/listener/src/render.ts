import type { ContainerSpec, DesiredRevision, KubeObject, ResourceSpec } from "./types.js";

/** Label keys every rendered object carries; the listener prunes and deletes by them. */
export const LABELS = {
  deployment: "berth.dev/deployment-id",
  revision: "berth.dev/revision-id",
  component: "berth.dev/component",
  managedBy: "app.kubernetes.io/managed-by",
  /** Added by the listener that applies the object: it prunes and deletes only its own. */
  listener: "berth.dev/listener-id",
} as const;

/** Kubernetes object names are DNS-1123 labels: lower case, digits and dashes, at most 63 chars. */
export function objectName(name: string, suffix: string): string {
  const base = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "");
  const room = 63 - suffix.length - 1;
  return `${(base || "deployment").slice(0, room).replace(/-+$/g, "")}-${suffix}`;
}

const cpuQuantity = (cores: number): string => `${Math.round(cores * 1000)}m`;
const memQuantity = (mb: number): string => `${mb}Mi`;

/** requests/limits from a (request, limit) pair; a null limit leaves the limit out. */
function resources(cpu: number | null, cpuLimit: number | null, mem: number | null, memLimit: number | null) {
  const requests: Record<string, string> = {};
  const limits: Record<string, string> = {};
  if (cpu !== null) requests.cpu = cpuQuantity(cpu);
  if (mem !== null) requests.memory = memQuantity(mem);
  if (cpuLimit !== null) limits.cpu = cpuQuantity(cpuLimit);
  if (memLimit !== null) limits.memory = memQuantity(memLimit);
  return { requests, limits };
}

function metadata(rev: DesiredRevision, name: string, component: string, withUser: boolean) {
  const spec = rev.resource_spec;
  return {
    name,
    namespace: rev.namespace,
    labels: {
      ...(withUser ? (spec.labels ?? {}) : {}),
      [LABELS.deployment]: rev.deployment_id,
      [LABELS.revision]: rev.revision_id,
      [LABELS.component]: component,
      [LABELS.managedBy]: "berth",
    },
    ...(withUser && spec.annotations ? { annotations: { ...spec.annotations } } : {}),
  };
}

/** Selector labels stay stable across revisions so a new revision rolls the same Deployment. */
function selector(rev: DesiredRevision, component: string): Record<string, string> {
  return { [LABELS.deployment]: rev.deployment_id, [LABELS.component]: component };
}

/** Env shared by the API and queue containers: secrets, secret references, backing services. */
function agentEnv(rev: DesiredRevision, role: "api" | "queue"): unknown[] {
  const secretName = objectName(rev.name, "secrets");
  const env: unknown[] = [
    // The agent server's roles are api|worker|all (`berth serve --role`): queue pods are workers.
    { name: "BERTH_ROLE", value: role === "api" ? "api" : "worker" },
    { name: "PORT", value: "8000" },
    { name: "DATABASE_URI", valueFrom: { secretKeyRef: { name: secretName, key: "DATABASE_URI" } } },
    { name: "REDIS_URI", value: `redis://${objectName(rev.name, "redis")}:6379` },
  ];
  for (const s of [...rev.secrets].sort((a, b) => a.name.localeCompare(b.name))) {
    env.push({ name: s.name, valueFrom: { secretKeyRef: { name: secretName, key: s.name } } });
  }
  for (const r of rev.secret_references) {
    env.push({ name: r.name, valueFrom: { secretKeyRef: { name: r.secret_name, key: r.secret_key } } });
  }
  return env;
}

/** Pod spec parts the spec lists once and applies to the agent server pods exactly as given. */
function podExtras(spec: ResourceSpec) {
  return {
    ...(spec.service_account_name ? { serviceAccountName: spec.service_account_name } : {}),
    ...(spec.image_pull_secrets?.length ? { imagePullSecrets: spec.image_pull_secrets } : {}),
    ...(spec.volumes?.length ? { volumes: spec.volumes } : {}),
    ...(spec.init_containers?.length ? { initContainers: spec.init_containers } : {}),
  };
}

/** Whether a role's scale is a range (an HPA scales it) rather than fixed. */
function autoscaled(spec: ResourceSpec, role: "api" | "queue"): boolean {
  return role === "api"
    ? spec.max_scale > Math.max(1, spec.min_scale)
    : (spec.queue_max_scale ?? spec.max_scale) > Math.max(1, spec.queue_min_scale ?? spec.min_scale);
}

function agentDeployment(rev: DesiredRevision, role: "api" | "queue"): KubeObject {
  const spec = rev.resource_spec;
  const api = role === "api";
  const name = objectName(rev.name, role);
  const res = api
    ? resources(spec.cpu, spec.cpu_limit, spec.memory_mb, spec.memory_limit_mb)
    : resources(spec.queue_cpu, spec.queue_cpu_limit, spec.queue_memory_mb, spec.queue_memory_limit_mb);
  const container: Record<string, unknown> = {
    name: role,
    image: rev.image_uri,
    env: agentEnv(rev, role),
    resources: res,
    ...(spec.volume_mounts?.length ? { volumeMounts: spec.volume_mounts } : {}),
  };
  if (api) {
    container.ports = [{ name: "http", containerPort: 8000 }];
    container.readinessProbe = { httpGet: { path: "/ok", port: "http" }, periodSeconds: 5 };
  }
  const containers: ContainerSpec[] = [container as ContainerSpec, ...(spec.sidecars ?? [])];
  const minScale = api ? spec.min_scale : (spec.queue_min_scale ?? spec.min_scale);
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: metadata(rev, name, role, true),
    spec: {
      // With an HPA, replicas are its to set: an apply that named them would undo its scaling.
      ...(autoscaled(spec, role) ? {} : { replicas: minScale }),
      progressDeadlineSeconds: 600,
      revisionHistoryLimit: 3,
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      selector: { matchLabels: selector(rev, role) },
      template: {
        metadata: metadata(rev, name, role, true),
        spec: { ...podExtras(spec), containers },
      },
    },
  };
}

function autoscaler(rev: DesiredRevision, role: "api" | "queue"): KubeObject {
  const spec = rev.resource_spec;
  const min = role === "api" ? spec.min_scale : (spec.queue_min_scale ?? spec.min_scale);
  const max = role === "api" ? spec.max_scale : (spec.queue_max_scale ?? spec.max_scale);
  const target = objectName(rev.name, role);
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: metadata(rev, target, role, true),
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: target },
      // An HPA needs minReplicas >= 1; min_scale 0 is served by one replica.
      minReplicas: Math.max(1, min),
      maxReplicas: Math.max(1, min, max),
      metrics: [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 75 } },
        },
      ],
    },
  };
}

function secret(rev: DesiredRevision): KubeObject {
  const db = objectName(rev.name, "postgres");
  const stringData: Record<string, string> = {
    POSTGRES_PASSWORD: rev.database_password,
    DATABASE_URI: `postgres://postgres:${encodeURIComponent(rev.database_password)}@${db}:5432/postgres`,
  };
  for (const s of rev.secrets) stringData[s.name] = s.value;
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: metadata(rev, objectName(rev.name, "secrets"), "secrets", false),
    type: "Opaque",
    stringData,
  };
}

function service(
  rev: DesiredRevision,
  component: string,
  port: number,
  targetPort: number | string,
): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: metadata(rev, objectName(rev.name, component), component, component === "api"),
    spec: {
      selector: selector(rev, component),
      ports: [{ name: "tcp", port, targetPort }],
    },
  };
}

function statefulSet(
  rev: DesiredRevision,
  component: "redis" | "postgres",
  container: Record<string, unknown>,
  storageGi: number | null,
): KubeObject {
  const name = objectName(rev.name, component);
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: metadata(rev, name, component, false),
    spec: {
      serviceName: name,
      replicas: 1,
      selector: { matchLabels: selector(rev, component) },
      template: {
        metadata: { labels: { ...selector(rev, component), [LABELS.managedBy]: "berth" } },
        spec: { containers: [container] },
      },
      ...(storageGi !== null
        ? {
            volumeClaimTemplates: [
              {
                metadata: { name: "data" },
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

function redis(rev: DesiredRevision): KubeObject {
  const s = rev.resource_spec;
  return statefulSet(
    rev,
    "redis",
    {
      name: "redis",
      image: "redis:7-alpine",
      ports: [{ name: "redis", containerPort: 6379 }],
      resources: resources(s.cache_cpu, s.cache_cpu_limit, s.cache_memory_mb, s.cache_memory_limit_mb),
    },
    null,
  );
}

function postgres(rev: DesiredRevision): KubeObject {
  const s = rev.resource_spec;
  const secretName = objectName(rev.name, "secrets");
  return statefulSet(
    rev,
    "postgres",
    {
      name: "postgres",
      image: "postgres:16-alpine",
      args: ["-c", `max_connections=${s.db_max_connections ?? 100}`],
      env: [
        {
          name: "POSTGRES_PASSWORD",
          valueFrom: { secretKeyRef: { name: secretName, key: "POSTGRES_PASSWORD" } },
        },
        { name: "PGDATA", value: "/var/lib/postgresql/data/pgdata" },
      ],
      ports: [{ name: "postgres", containerPort: 5432 }],
      resources: resources(s.db_cpu, s.db_cpu_limit, s.db_memory_mb, s.db_memory_limit_mb),
      volumeMounts: [{ name: "data", mountPath: "/var/lib/postgresql/data" }],
    },
    s.db_storage_gi ?? 10,
  );
}

/**
 * Renders one revision into the objects the listener applies, in a fixed order (dependencies
 * first). Pure: same input, same output; the golden files pin it.
 */
export function renderRevision(rev: DesiredRevision): KubeObject[] {
  // A fixed scale (min = max) needs no autoscaler; the listener prunes one a new revision drops.
  const scales = (role: "api" | "queue") => autoscaled(rev.resource_spec, role);
  return [
    secret(rev),
    postgres(rev),
    service(rev, "postgres", 5432, 5432),
    redis(rev),
    service(rev, "redis", 6379, 6379),
    agentDeployment(rev, "api"),
    ...(scales("api") ? [autoscaler(rev, "api")] : []),
    service(rev, "api", 8000, "http"),
    agentDeployment(rev, "queue"),
    ...(scales("queue") ? [autoscaler(rev, "queue")] : []),
  ];
}

/** The in-cluster URL of a deployment's API Service (custom_url when the user gives none). */
export function inClusterUrl(rev: Pick<DesiredRevision, "name" | "namespace">): string {
  return `http://${objectName(rev.name, "api")}.${rev.namespace}.svc.cluster.local:8000`;
}

/**
 * Objects present in the cluster for a deployment that the current render no longer holds
 * (identified by kind/name): what the listener prunes after applying a new revision.
 */
export function toPrune(current: KubeObject[], live: KubeObject[]): KubeObject[] {
  const keep = new Set(current.map((o) => `${o.kind}/${o.metadata.name}`));
  return live.filter((o) => !keep.has(`${o.kind}/${o.metadata.name}`));
}
