import { LABELS } from "./names.js";
import type { KubeObject } from "./types.js";

/** Where a rollout stands. */
export type RolloutVerdict =
  | { state: "progressing"; detail: string }
  | { state: "available" }
  | { state: "failed"; reason: string; pod?: { name: string; container: string; previous: boolean } };

/**
 * Container states that do not fix themselves: the rollout fails at once instead of waiting for
 * the progress deadline. (ErrImagePull is left out: a registry hiccup retries into a pull that works.)
 */
const FATAL_WAITING = new Set([
  "ImagePullBackOff",
  "InvalidImageName",
  "ErrImageNeverPull",
  "CrashLoopBackOff",
  "CreateContainerConfigError",
  "CreateContainerError",
  "RunContainerError",
]);

type DeploymentStatus = {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  availableReplicas?: number;
  conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
};
type ContainerStatus = { name: string; state?: { waiting?: { reason?: string; message?: string } } };
type PodStatus = { containerStatuses?: ContainerStatus[]; initContainerStatuses?: ContainerStatus[] };

/**
 * Judges a revision's rollout from its API Deployment and the pods of that revision (pure). It is
 * available when the Deployment's new ReplicaSet is: the controller saw this generation, every
 * replica is updated and available, and no old replica is left (`kubectl rollout status` logic).
 * It failed when a pod of the revision is stuck (image pull, crash loop, bad config) or the
 * Deployment passed its progress deadline.
 */
export function judgeRollout(
  deployment: KubeObject | undefined,
  pods: readonly KubeObject[],
  revisionId: string,
): RolloutVerdict {
  if (!deployment) return { state: "progressing", detail: "the API Deployment does not exist yet" };
  const template = (deployment.spec as { template?: { metadata?: { labels?: Record<string, string> } } })
    ?.template;
  if (template?.metadata?.labels?.[LABELS.revision] !== revisionId) {
    return { state: "progressing", detail: "the API Deployment does not run this revision yet" };
  }
  for (const pod of pods) {
    const status = (pod.status ?? {}) as PodStatus;
    for (const [list, previous] of [
      [status.initContainerStatuses, false],
      [status.containerStatuses, true],
    ] as const) {
      for (const c of list ?? []) {
        const waiting = c.state?.waiting;
        if (waiting?.reason && FATAL_WAITING.has(waiting.reason)) {
          return {
            state: "failed",
            reason: `pod ${pod.metadata.name}, container ${c.name}: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ""}`,
            pod: {
              name: pod.metadata.name,
              container: c.name,
              previous: previous && waiting.reason === "CrashLoopBackOff",
            },
          };
        }
      }
    }
  }
  const status = (deployment.status ?? {}) as DeploymentStatus;
  const progressing = status.conditions?.find((c) => c.type === "Progressing");
  if (progressing?.reason === "ProgressDeadlineExceeded") {
    return {
      state: "failed",
      reason: `ProgressDeadlineExceeded: ${progressing.message ?? "the rollout made no progress in time"}`,
    };
  }
  const generation = (deployment.metadata as { generation?: number }).generation ?? 0;
  if ((status.observedGeneration ?? 0) < generation) {
    return { state: "progressing", detail: "waiting for the Deployment controller to see the new spec" };
  }
  const replicas = (deployment.spec as { replicas?: number }).replicas ?? 1;
  const updated = status.updatedReplicas ?? 0;
  if (updated < replicas)
    return { state: "progressing", detail: `${updated} of ${replicas} new replicas updated` };
  if ((status.replicas ?? 0) > updated) {
    return {
      state: "progressing",
      detail: `${(status.replicas ?? 0) - updated} old replicas pending termination`,
    };
  }
  const available = status.availableReplicas ?? 0;
  if (available < updated)
    return { state: "progressing", detail: `${available} of ${updated} updated replicas available` };
  return { state: "available" };
}
