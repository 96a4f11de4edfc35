import { type Component, LABELS } from "./names.js";
import type { DesiredRevision } from "./types.js";

const cpuQuantity = (cores: number): string => `${Math.round(cores * 1000)}m`;
const memQuantity = (mb: number): string => `${mb}Mi`;

/** requests/limits from a (request, limit) pair; a null limit leaves the limit out. */
export function resources(
  cpu: number | null,
  cpuLimit: number | null,
  mem: number | null,
  memLimit: number | null,
) {
  const requests: Record<string, string> = {};
  const limits: Record<string, string> = {};
  if (cpu !== null) requests.cpu = cpuQuantity(cpu);
  if (mem !== null) requests.memory = memQuantity(mem);
  if (cpuLimit !== null) limits.cpu = cpuQuantity(cpuLimit);
  if (memLimit !== null) limits.memory = memQuantity(memLimit);
  return { requests, limits };
}

/**
 * Labels and annotations of an object or pod template: the user's (resource_spec.labels and
 * annotations, on every object) under Berth's own, which win (the control plane refuses user keys
 * under berth.dev/ anyway). `revision`: false for what must not change per revision (StatefulSet
 * pod templates: a new revision of the agent does not restart its database).
 */
export function labelsOf(rev: DesiredRevision, component: Component, revision = true) {
  const spec = rev.resource_spec;
  return {
    labels: {
      ...(spec.labels ?? {}),
      [LABELS.deployment]: rev.deployment_id,
      ...(revision ? { [LABELS.revision]: rev.revision_id } : {}),
      [LABELS.component]: component,
      [LABELS.managedBy]: "berth",
    },
    ...(spec.annotations && Object.keys(spec.annotations).length > 0
      ? { annotations: { ...spec.annotations } }
      : {}),
  };
}

/** An object's metadata: name, namespace, labels and annotations. */
export function metadata(rev: DesiredRevision, name: string, component: Component) {
  return { name, namespace: rev.namespace, ...labelsOf(rev, component) };
}

/** Selector labels stay stable across revisions so a new revision rolls the same workload. */
export function selector(rev: DesiredRevision, component: Component): Record<string, string> {
  return { [LABELS.deployment]: rev.deployment_id, [LABELS.component]: component };
}

/**
 * The `restricted` Pod Security Standard, pod side: not root (`uid`, also the group that owns
 * mounted volumes), the runtime's default seccomp profile.
 */
export function restrictedPod(uid: number) {
  return {
    runAsNonRoot: true,
    runAsUser: uid,
    runAsGroup: uid,
    fsGroup: uid,
    seccompProfile: { type: "RuntimeDefault" },
  };
}

/** The `restricted` Pod Security Standard, container side: no privilege escalation, no capabilities. */
export function restrictedContainer(): {
  allowPrivilegeEscalation: boolean;
  capabilities: { drop: string[] };
} {
  return { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } };
}
