import { createHash, randomBytes } from "node:crypto";
import type { KubeJson, ObjectStore } from "./store.js";

/** How the simulated cluster behaves. */
export interface ControllerOptions {
  /** How long a healthy new pod takes to become ready. */
  readyDelayMs: number;
  /** Overrides every Deployment's progressDeadlineSeconds (tests cannot wait ten minutes). */
  progressDeadlineMs: number | null;
}

/**
 * What a simulated container does with its image: an image whose reference contains
 * `does-not-exist` cannot be pulled (ImagePullBackOff); one containing `crashloop` starts and
 * exits with an error (CrashLoopBackOff); one containing `never-ready` runs but never passes its
 * readiness probe (the rollout waits until its progress deadline); any other becomes ready.
 */
export function imageBehaviour(image: string): "ok" | "pull-error" | "crash" | "never-ready" {
  if (image.includes("does-not-exist")) return "pull-error";
  if (image.includes("crashloop")) return "crash";
  if (image.includes("never-ready")) return "never-ready";
  return "ok";
}

const hashOf = (value: unknown) =>
  createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 10);
const now = () => new Date().toISOString();
type Template = {
  metadata?: { labels?: Record<string, string> };
  spec: { containers: Array<{ name: string; image: string }> };
};

/**
 * A tiny kube-controller-manager: Deployments get a ReplicaSet per pod template and pods whose
 * status follows their image (see imageBehaviour); a rollout completes (old ReplicaSets scaled to
 * zero, status observedGeneration/updatedReplicas/availableReplicas set) only when the new pods are
 * ready; StatefulSets become ready at once. Status is written only when it changes.
 */
export class SimController {
  /** When each ReplicaSet's pods were created (readiness comes readyDelayMs later). */
  readonly #started = new Map<string, number>();
  /** When each Deployment's current rollout began (for the progress deadline). */
  readonly #rollouts = new Map<string, { hash: string; at: number }>();

  constructor(
    private readonly store: ObjectStore,
    private readonly options: ControllerOptions,
  ) {}

  /** One reconcile pass over every Deployment and StatefulSet. */
  tick(): void {
    for (const deployment of this.store.list("Deployment")) this.#deployment(deployment);
    for (const sts of this.store.list("StatefulSet")) {
      const replicas = Number(sts.spec?.replicas ?? 1);
      this.#setStatus(sts, {
        observedGeneration: sts.metadata.generation,
        replicas,
        readyReplicas: replicas,
        currentReplicas: replicas,
        updatedReplicas: replicas,
        availableReplicas: replicas,
      });
    }
  }

  #deployment(d: KubeJson): void {
    const ns = d.metadata.namespace;
    const spec = d.spec as { replicas?: number; template: Template; progressDeadlineSeconds?: number };
    const replicas = spec.replicas ?? 1;
    const hash = hashOf(spec.template);
    const owned = this.store
      .list("ReplicaSet", ns)
      .filter((rs) => rs.metadata.ownerReferences?.some((r) => r.uid === d.metadata.uid));
    let current = owned.find((rs) => rs.metadata.labels?.["pod-template-hash"] === hash);
    if (!current) {
      current = this.#replicaSet(d, spec.template, hash, replicas);
    }
    const rollout = this.#rollouts.get(d.metadata.uid ?? "");
    if (rollout?.hash !== hash) this.#rollouts.set(d.metadata.uid ?? "", { hash, at: Date.now() });
    const startedAt = this.#rollouts.get(d.metadata.uid ?? "")?.at ?? Date.now();
    const pods = this.#podsOf(current);
    while (pods.length < replicas) pods.push(this.#pod(current));
    const ready = pods.filter((p) => this.#podReady(current as KubeJson, p)).length;
    this.#replicaSetStatus(current, replicas, ready);
    const old = owned.filter((rs) => rs !== current);
    const complete = ready >= replicas;
    let oldReady = 0;
    for (const rs of old) {
      if (complete) {
        for (const pod of this.#podsOf(rs)) this.store.delete("Pod", ns, pod.metadata.name);
        if (rs.spec?.replicas !== 0) this.store.put({ ...rs, spec: { ...rs.spec, replicas: 0 } });
        this.#replicaSetStatus(rs, 0, 0);
      } else {
        oldReady += this.#podsOf(rs).length;
      }
    }
    const deadlineMs = this.options.progressDeadlineMs ?? (spec.progressDeadlineSeconds ?? 600) * 1000;
    const progressing = complete
      ? {
          status: "True",
          reason: "NewReplicaSetAvailable",
          message: `ReplicaSet "${current.metadata.name}" has successfully progressed.`,
        }
      : Date.now() - startedAt > deadlineMs
        ? {
            status: "False",
            reason: "ProgressDeadlineExceeded",
            message: `ReplicaSet "${current.metadata.name}" has timed out progressing.`,
          }
        : {
            status: "True",
            reason: "ReplicaSetUpdated",
            message: `ReplicaSet "${current.metadata.name}" is progressing.`,
          };
    const available = ready + oldReady;
    this.#setStatus(d, {
      observedGeneration: d.metadata.generation,
      replicas: pods.length + oldReady,
      updatedReplicas: pods.length,
      readyReplicas: available,
      availableReplicas: available,
      ...(pods.length + oldReady - available > 0
        ? { unavailableReplicas: pods.length + oldReady - available }
        : {}),
      conditions: [
        {
          type: "Available",
          status: available >= replicas ? "True" : "False",
          reason: available >= replicas ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
        },
        { type: "Progressing", ...progressing },
      ],
    });
  }

  #replicaSet(d: KubeJson, template: Template, hash: string, replicas: number): KubeJson {
    const labels = { ...(template.metadata?.labels ?? {}), "pod-template-hash": hash };
    const rs = this.store.put({
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: {
        name: `${d.metadata.name}-${hash}`,
        namespace: d.metadata.namespace,
        labels,
        generation: 1,
        ownerReferences: [
          {
            apiVersion: "apps/v1",
            kind: "Deployment",
            name: d.metadata.name,
            uid: d.metadata.uid ?? "",
            controller: true,
          },
        ],
      },
      spec: {
        replicas,
        selector: {
          matchLabels: {
            ...((d.spec?.selector as { matchLabels?: Record<string, string> })?.matchLabels ?? {}),
            "pod-template-hash": hash,
          },
        },
        template: { ...template, metadata: { ...(template.metadata ?? {}), labels } },
      },
    });
    this.#started.set(rs.metadata.uid ?? "", Date.now());
    return rs;
  }

  #podsOf(rs: KubeJson): KubeJson[] {
    return this.store.dependentsOf(rs.metadata.uid ?? "").filter((o) => o.kind === "Pod");
  }

  #pod(rs: KubeJson): KubeJson {
    const template = (rs.spec as { template: Template }).template;
    return this.store.put({
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: `${rs.metadata.name}-${randomBytes(3).toString("hex").slice(0, 5)}`,
        namespace: rs.metadata.namespace,
        labels: template.metadata?.labels ?? {},
        ownerReferences: [
          {
            apiVersion: "apps/v1",
            kind: "ReplicaSet",
            name: rs.metadata.name,
            uid: rs.metadata.uid ?? "",
            controller: true,
          },
        ],
      },
      spec: template.spec as unknown as Record<string, unknown>,
      status: { phase: "Pending", conditions: [{ type: "PodScheduled", status: "True" }] },
    });
  }

  /** Moves a pod's status along its image's behaviour; whether it is ready. */
  #podReady(rs: KubeJson, pod: KubeJson): boolean {
    const containers = (pod.spec as Template["spec"]).containers;
    const waited = Date.now() - (this.#started.get(rs.metadata.uid ?? "") ?? 0) >= this.options.readyDelayMs;
    const statuses = containers.map((c) => {
      const behaviour = imageBehaviour(c.image);
      const base = {
        name: c.name,
        image: c.image,
        imageID: "",
        restartCount: 0,
        ready: false,
        started: false,
      };
      if (behaviour === "pull-error") {
        return {
          ...base,
          state: { waiting: { reason: "ImagePullBackOff", message: `Back-off pulling image "${c.image}"` } },
        };
      }
      if (behaviour === "crash") {
        return {
          ...base,
          restartCount: 3,
          state: {
            waiting: {
              reason: "CrashLoopBackOff",
              message: `back-off 40s restarting failed container=${c.name} pod=${pod.metadata.name}`,
            },
          },
          lastState: { terminated: { exitCode: 1, reason: "Error", startedAt: now(), finishedAt: now() } },
        };
      }
      if (!waited) return { ...base, state: { waiting: { reason: "ContainerCreating" } } };
      if (behaviour === "never-ready")
        return { ...base, started: true, state: { running: { startedAt: now() } } };
      return { ...base, ready: true, started: true, state: { running: { startedAt: now() } } };
    });
    const ready = statuses.every((s) => s.ready);
    const phase = statuses.some((s) => s.started || s.restartCount > 0) ? "Running" : "Pending";
    this.#setStatus(pod, {
      phase,
      conditions: [
        { type: "PodScheduled", status: "True" },
        { type: "Ready", status: ready ? "True" : "False" },
        { type: "ContainersReady", status: ready ? "True" : "False" },
      ],
      containerStatuses: statuses,
    });
    return ready;
  }

  #replicaSetStatus(rs: KubeJson, replicas: number, ready: number): void {
    this.#setStatus(rs, {
      observedGeneration: rs.metadata.generation,
      replicas,
      readyReplicas: ready,
      availableReplicas: ready,
      fullyLabeledReplicas: replicas,
    });
  }

  /** Writes `status` when it differs (conditions keep no timestamps, so a stable state stays still). */
  #setStatus(object: KubeJson, status: Record<string, unknown>): void {
    const clean = JSON.parse(JSON.stringify(status)) as Record<string, unknown>;
    const strip = (s: unknown) =>
      JSON.stringify(s, (k, v) => (k === "startedAt" || k === "finishedAt" ? undefined : v));
    if (strip(object.status) === strip(clean)) return;
    const latest = this.store.get(object.kind, object.metadata.namespace, object.metadata.name);
    if (!latest) return;
    this.store.put({ ...latest, status: clean });
  }
}

/** Log text of a simulated container (what `kubectl logs` would print). */
export function simulatedLogs(image: string): string {
  switch (imageBehaviour(image)) {
    case "crash":
      return "Starting agent server...\nError: simulated crash: could not load graphs\n    at main (server.js:1:1)\n";
    default:
      return "Starting agent server...\nServer listening on port 8000\n";
  }
}
