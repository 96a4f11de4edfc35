import { ApiException, CoordinationV1Api, type KubeConfig, type V1Lease } from "@kubernetes/client-node";
import type { LeasePort, LeaseRecord } from "./leader-election.js";

const status = (error: unknown) => (error instanceof ApiException ? error.code : undefined);

/**
 * A Lease's renewTime/acquireTime: a MicroTime, which the API server parses with exactly six
 * fractional digits. client-node 1.4.0 sends a Date as toISOString() (three digits: 400 Bad
 * Request), and passes a string through as it is, so the string is made here.
 */
const microTime = (ms: number) =>
  new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z") as unknown as Date;

/** The listeners' Lease (coordination.k8s.io/v1) in one namespace, on @kubernetes/client-node 1.4.0. */
export class ClientNodeLease implements LeasePort {
  readonly #api: CoordinationV1Api;

  constructor(
    kc: KubeConfig,
    private readonly namespace: string,
    private readonly name: string,
    private readonly labels: Record<string, string>,
  ) {
    this.#api = kc.makeApiClient(CoordinationV1Api);
  }

  async read(): Promise<LeaseRecord | undefined> {
    try {
      const lease = await this.#api.readNamespacedLease({ name: this.name, namespace: this.namespace });
      return {
        holder: lease.spec?.holderIdentity || null,
        renewedAt: lease.spec?.renewTime ? new Date(lease.spec.renewTime).getTime() : null,
        durationSeconds: lease.spec?.leaseDurationSeconds ?? 15,
        transitions: lease.spec?.leaseTransitions ?? 0,
        version: lease.metadata?.resourceVersion ?? "",
      };
    } catch (error) {
      if (status(error) === 404) return undefined;
      throw error;
    }
  }

  async create(holder: string, durationSeconds: number): Promise<boolean> {
    const now = Date.now();
    try {
      await this.#api.createNamespacedLease({
        namespace: this.namespace,
        body: {
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: { name: this.name, namespace: this.namespace, labels: this.labels },
          spec: {
            holderIdentity: holder,
            leaseDurationSeconds: durationSeconds,
            acquireTime: microTime(now),
            renewTime: microTime(now),
            leaseTransitions: 0,
          },
        },
      });
      return true;
    } catch (error) {
      if (status(error) === 409) return false;
      throw error;
    }
  }

  async update(
    previous: LeaseRecord,
    next: { holder: string | null; durationSeconds: number; transitions: number },
  ): Promise<boolean> {
    const now = Date.now();
    const body: V1Lease = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: {
        name: this.name,
        namespace: this.namespace,
        labels: this.labels,
        resourceVersion: previous.version,
      },
      spec: {
        ...(next.holder ? { holderIdentity: next.holder } : {}),
        leaseDurationSeconds: next.durationSeconds,
        renewTime: microTime(now),
        ...(next.holder && next.holder !== previous.holder ? { acquireTime: microTime(now) } : {}),
        leaseTransitions: next.transitions,
      },
    };
    try {
      await this.#api.replaceNamespacedLease({ name: this.name, namespace: this.namespace, body });
      return true;
    } catch (error) {
      // 409: another listener wrote the lease since we read it; it won this round.
      if (status(error) === 409) return false;
      throw error;
    }
  }
}
