// What the listener checks before it server-side applies an object (with force, so the check
// matters): that the object is absent or this deployment's own, and that a StatefulSet's claim
// template, which Kubernetes never lets change, is handled the way Kubernetes allows.
import { LABELS } from "./names.js";
import { CLAIM_TEMPLATE } from "./render-backing.js";
import type { ClusterPort, KubeObject } from "./types.js";

/** A refusal the listener decides itself (not the API server's): reported as it is. */
export class RefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RefusedError";
  }
}

/** The object to apply, and lines for the deploy log about what was done to make it applicable. */
export type Prepared = { object: KubeObject; log: string[] };

type ClaimTemplate = {
  metadata?: { name?: string };
  spec?: { resources?: { requests?: { storage?: string } } };
};
type StatefulSetSpec = { replicas?: number; volumeClaimTemplates?: ClaimTemplate[] };

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50 };
const DECIMAL: Record<string, number> = { k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15 };

/** Bytes of a storage quantity ("10Gi", "500M"); NaN when it is none of those forms. */
function bytes(quantity: string | undefined): number {
  const m = /^(\d+(?:\.\d+)?)([KMGTP]i|[kMGTP])?$/.exec(quantity ?? "");
  if (!m) return Number.NaN;
  const unit = m[2] ?? "";
  return Number(m[1]) * (BINARY[unit] ?? DECIMAL[unit] ?? 1);
}

function claimSize(sts: KubeObject): string | undefined {
  const templates = (sts.spec as StatefulSetSpec | undefined)?.volumeClaimTemplates ?? [];
  return templates.find((t) => t.metadata?.name === CLAIM_TEMPLATE)?.spec?.resources?.requests?.storage;
}

function withClaimSize(sts: KubeObject, size: string): KubeObject {
  const spec = sts.spec as StatefulSetSpec;
  return {
    ...sts,
    spec: {
      ...spec,
      volumeClaimTemplates: (spec.volumeClaimTemplates ?? []).map((t) =>
        t.metadata?.name === CLAIM_TEMPLATE
          ? { ...t, spec: { ...t.spec, resources: { ...t.spec?.resources, requests: { storage: size } } } }
          : t,
      ),
    },
  };
}

/** Reads each object before it is applied; see the file comment. */
export class ObjectGuard {
  constructor(
    private readonly cluster: ClusterPort,
    /** How long to wait for an orphan-deleted StatefulSet to be gone before recreating it. */
    private readonly deletionWaitMs = 60_000,
  ) {}

  /** The object to apply for `deploymentId`; throws RefusedError when it must not be applied. */
  async prepare(object: KubeObject, deploymentId: string): Promise<Prepared> {
    const { apiVersion, kind } = object;
    const { name, namespace = "default" } = object.metadata;
    const live = await this.cluster.get(apiVersion, kind, namespace, name);
    if (!live) return { object, log: [] };
    const owner = live.metadata.labels?.[LABELS.deployment];
    if (owner !== deploymentId) {
      // The other deployment may be another workspace's: its id is not named here.
      throw new RefusedError(
        `${kind}/${name} already exists in namespace ${namespace} and belongs to ${owner ? "another Berth deployment" : "no Berth deployment"}; Berth does not take over objects it does not own (delete or rename that object, or deploy to another namespace)`,
      );
    }
    if (kind === "StatefulSet") return this.#claims(object, live);
    return { object, log: [] };
  }

  /**
   * A StatefulSet's volumeClaimTemplates cannot change. A larger size expands the existing claims
   * (PVC resize, which the StorageClass must allow), then the StatefulSet is deleted with orphan
   * propagation (its pod keeps running) and applied again with the new template, adopting the pod.
   * A smaller size (a rollback after a growth) keeps the live size: a claim never shrinks.
   */
  async #claims(object: KubeObject, live: KubeObject): Promise<Prepared> {
    const want = claimSize(object);
    const have = claimSize(live);
    if (!want || !have || bytes(want) === bytes(have)) return { object, log: [] };
    const { name, namespace = "default" } = object.metadata;
    if (bytes(want) < bytes(have)) {
      return {
        object: withClaimSize(object, have),
        log: [`StatefulSet/${name} keeps its ${have} claims: a claim cannot shrink to ${want}`],
      };
    }
    const log: string[] = [];
    const replicas = (live.spec as StatefulSetSpec | undefined)?.replicas ?? 1;
    for (let ordinal = 0; ordinal < replicas; ordinal++) {
      const claim = `${CLAIM_TEMPLATE}-${name}-${ordinal}`;
      const pvc = await this.cluster.get("v1", "PersistentVolumeClaim", namespace, claim);
      const size = (pvc?.spec as ClaimTemplate["spec"] | undefined)?.resources?.requests?.storage;
      if (!pvc || bytes(size) >= bytes(want)) continue;
      try {
        // A partial apply: only the requested size is Berth's; the claim's other fields stay the
        // StatefulSet controller's.
        await this.cluster.apply({
          apiVersion: "v1",
          kind: "PersistentVolumeClaim",
          metadata: { name: claim, namespace },
          spec: { resources: { requests: { storage: want } } },
        });
      } catch (error) {
        throw new RefusedError(
          `the cluster refused to expand PersistentVolumeClaim ${claim} from ${size} to ${want} (its StorageClass must allow volume expansion and the claim must be bound): ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      log.push(`Expanded PersistentVolumeClaim ${claim} from ${size} to ${want}`);
    }
    await this.cluster.delete(live, "Orphan");
    const deadline = Date.now() + this.deletionWaitMs;
    while (await this.cluster.get(object.apiVersion, "StatefulSet", namespace, name)) {
      if (Date.now() > deadline) {
        throw new Error(
          `StatefulSet/${name} was not deleted within ${this.deletionWaitMs} ms; retrying later`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    log.push(
      `Recreated StatefulSet/${name} with ${want} claims (deleted with orphan propagation: its pod kept running)`,
    );
    return { object, log };
  }
}
