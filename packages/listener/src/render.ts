import { objectName } from "./names.js";
import { backingSecretData, renderBacking, uriSource } from "./render-backing.js";
import {
  labelsOf,
  metadata,
  resources,
  restrictedContainer,
  restrictedPod,
  selector,
} from "./render-common.js";
import {
  type ContainerSpec,
  DEFAULT_RENDER_OPTIONS,
  type DesiredRevision,
  type KubeObject,
  type RenderOptions,
  type ResourceSpec,
} from "./types.js";

/** Env shared by the API and queue containers: secrets, secret references, backing services. */
function agentEnv(rev: DesiredRevision, role: "api" | "queue"): unknown[] {
  const secretName = objectName(rev, "secrets");
  const env: unknown[] = [
    // The agent server's roles are api|worker|all (`berth serve --role`): queue pods are workers.
    { name: "BERTH_ROLE", value: role === "api" ? "api" : "worker" },
    { name: "PORT", value: "8000" },
    { name: "DATABASE_URI", valueFrom: { secretKeyRef: uriSource(rev, "postgres") } },
    { name: "REDIS_URI", valueFrom: { secretKeyRef: uriSource(rev, "redis") } },
  ];
  for (const s of [...rev.secrets].sort((a, b) => a.name.localeCompare(b.name))) {
    env.push({ name: s.name, valueFrom: { secretKeyRef: { name: secretName, key: s.name } } });
  }
  for (const r of rev.secret_references) {
    env.push({ name: r.name, valueFrom: { secretKeyRef: { name: r.secret_name, key: r.secret_key } } });
  }
  return env;
}

/** UID and GID the agent pods run as (the `node` user of the official Node images). */
const AGENT_UID = 1000;

/** A user's init container or sidecar, with the restricted defaults under its own securityContext. */
function userContainer(c: ContainerSpec): ContainerSpec {
  const own = (c.securityContext ?? {}) as Record<string, unknown>;
  return { ...c, securityContext: { ...restrictedContainer(), ...own } };
}

/**
 * Pod spec parts the spec lists once and applies to the agent server pods. Sidecars with
 * `restartPolicy: Always` become native sidecars (init containers that keep running, Kubernetes
 * 1.29+), after the user's init containers; other sidecars run beside the main container.
 */
function podParts(spec: ResourceSpec) {
  const native = (spec.sidecars ?? []).filter((c) => c.restartPolicy === "Always");
  const initContainers = [...(spec.init_containers ?? []), ...native].map(userContainer);
  return {
    extras: {
      securityContext: restrictedPod(AGENT_UID),
      ...(spec.service_account_name ? { serviceAccountName: spec.service_account_name } : {}),
      ...(spec.image_pull_secrets?.length ? { imagePullSecrets: spec.image_pull_secrets } : {}),
      ...(spec.volumes?.length ? { volumes: spec.volumes } : {}),
      ...(initContainers.length ? { initContainers } : {}),
    },
    sidecars: (spec.sidecars ?? []).filter((c) => c.restartPolicy !== "Always").map(userContainer),
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
  const name = objectName(rev, role);
  const res = api
    ? resources(spec.cpu, spec.cpu_limit, spec.memory_mb, spec.memory_limit_mb)
    : resources(spec.queue_cpu, spec.queue_cpu_limit, spec.queue_memory_mb, spec.queue_memory_limit_mb);
  const container: Record<string, unknown> = {
    name: role,
    image: rev.image_uri,
    env: agentEnv(rev, role),
    resources: res,
    securityContext: restrictedContainer(),
    ...(spec.volume_mounts?.length ? { volumeMounts: spec.volume_mounts } : {}),
  };
  if (api) {
    container.ports = [{ name: "http", containerPort: 8000 }];
    container.readinessProbe = { httpGet: { path: "/ok", port: "http" }, periodSeconds: 5 };
  }
  const parts = podParts(spec);
  const containers: ContainerSpec[] = [container as ContainerSpec, ...parts.sidecars];
  const minScale = api ? spec.min_scale : (spec.queue_min_scale ?? spec.min_scale);
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: metadata(rev, name, role),
    spec: {
      // With an HPA, replicas are its to set: an apply that named them would undo its scaling.
      // min_scale 0 is refused by the control plane; one stored before that still gets a pod, so
      // DEPLOYED never means "no pod serves".
      ...(autoscaled(spec, role) ? {} : { replicas: Math.max(1, minScale) }),
      progressDeadlineSeconds: 600,
      revisionHistoryLimit: 3,
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      selector: { matchLabels: selector(rev, role) },
      template: {
        metadata: labelsOf(rev, role),
        spec: { ...parts.extras, containers },
      },
    },
  };
}

/** Voluntary disruptions (node drains) take at most one API pod at a time when there are several. */
function disruptionBudget(rev: DesiredRevision): KubeObject {
  return {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: metadata(rev, objectName(rev, "api"), "api"),
    spec: { maxUnavailable: 1, selector: { matchLabels: selector(rev, "api") } },
  };
}

function autoscaler(rev: DesiredRevision, role: "api" | "queue"): KubeObject {
  const spec = rev.resource_spec;
  const min = role === "api" ? spec.min_scale : (spec.queue_min_scale ?? spec.min_scale);
  const max = role === "api" ? spec.max_scale : (spec.queue_max_scale ?? spec.max_scale);
  const target = objectName(rev, role);
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: metadata(rev, target, role),
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
  const stringData: Record<string, string> = backingSecretData(rev);
  for (const s of rev.secrets) stringData[s.name] = s.value;
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: metadata(rev, objectName(rev, "secrets"), "secrets"),
    type: "Opaque",
    stringData,
  };
}

function apiService(rev: DesiredRevision): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: metadata(rev, objectName(rev, "api"), "api"),
    spec: { selector: selector(rev, "api"), ports: [{ name: "tcp", port: 8000, targetPort: "http" }] },
  };
}

/**
 * Renders one revision into the objects the listener applies, in a fixed order (dependencies
 * first). Pure: same input, same output; the golden files pin it.
 */
export function renderRevision(
  rev: DesiredRevision,
  options: RenderOptions = DEFAULT_RENDER_OPTIONS,
): KubeObject[] {
  // A fixed scale (min = max) needs no autoscaler; the listener prunes one a new revision drops.
  const scales = (role: "api" | "queue") => autoscaled(rev.resource_spec, role);
  const spec = rev.resource_spec;
  return [
    secret(rev),
    ...renderBacking(rev, options),
    agentDeployment(rev, "api"),
    ...(scales("api") ? [autoscaler(rev, "api")] : []),
    ...(scales("api") || spec.min_scale > 1 ? [disruptionBudget(rev)] : []),
    apiService(rev),
    agentDeployment(rev, "queue"),
    ...(scales("queue") ? [autoscaler(rev, "queue")] : []),
  ];
}

/**
 * Objects present in the cluster for a deployment that the current render no longer holds
 * (identified by kind/name): what the listener prunes after applying a new revision.
 */
export function toPrune(current: KubeObject[], live: KubeObject[]): KubeObject[] {
  const keep = new Set(current.map((o) => `${o.kind}/${o.metadata.name}`));
  return live.filter((o) => !keep.has(`${o.kind}/${o.metadata.name}`));
}
