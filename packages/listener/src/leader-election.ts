import { sleep } from "./sleep.js";
import type { ListenerLogger } from "./types.js";

/** A coordination.k8s.io Lease as the elector reads it. */
export interface LeaseRecord {
  holder: string | null;
  /** When the holder last renewed (ms since the epoch); null: never. */
  renewedAt: number | null;
  durationSeconds: number;
  transitions: number;
  /** The object's resourceVersion: an update made against an older one is refused (409). */
  version: string;
}

/** The Lease object the listeners of one id share (adapter: client-node-lease.ts). */
export interface LeasePort {
  read(): Promise<LeaseRecord | undefined>;
  /** Creates the Lease held by `holder`; false when another listener created it first. */
  create(holder: string, durationSeconds: number): Promise<boolean>;
  /** Replaces the Lease read as `previous`; false when it changed since (someone else wrote it). */
  update(
    previous: LeaseRecord,
    next: { holder: string | null; durationSeconds: number; transitions: number },
  ): Promise<boolean>;
}

/** Timings of the election, as client-go's leader election names them. */
export interface ElectionTimings {
  /** How long a lease holds without renewal before another listener may take it. */
  leaseDurationMs: number;
  /** A leader that could not renew for this long stops acting (must be < leaseDurationMs). */
  renewDeadlineMs: number;
  /** How often each listener tries to acquire or renew. */
  retryMs: number;
}

/** client-go's defaults: 15 s lease, 10 s renew deadline, 2 s retry. */
export const DEFAULT_TIMINGS: ElectionTimings = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryMs: 2_000,
};

/**
 * One listener's side of a Lease-based election among the listeners of one listener id: only the
 * leader polls the control plane and changes the cluster, so two replicas never apply different
 * revisions over each other. The Lease's resourceVersion makes every take-over and renewal an
 * optimistic write: of two listeners racing for an expired lease, one wins and one gets 409.
 * A leader that cannot renew within the renew deadline stops acting before its lease expires for
 * the others. On stop, the leader gives the lease up so a standby takes over at once.
 */
export class LeaderElector {
  #leading = false;
  #renewedAt = 0;
  #observed: { holder: string | null; version: string; at: number } | undefined;
  readonly #stop = new AbortController();
  #loop: Promise<void> | undefined;

  constructor(
    private readonly lease: LeasePort,
    readonly identity: string,
    private readonly timings: ElectionTimings,
    private readonly logger: ListenerLogger,
    private readonly now: () => number = Date.now,
  ) {
    if (timings.renewDeadlineMs >= timings.leaseDurationMs) {
      throw new Error("the renew deadline must be shorter than the lease duration");
    }
  }

  /** Whether this listener may act now (it holds the lease and renewed it in time). */
  get leading(): boolean {
    if (this.#leading && this.now() - this.#renewedAt > this.timings.renewDeadlineMs)
      this.#demote("renew deadline passed");
    return this.#leading;
  }

  /** Starts trying to acquire and then renew, every retry period, until `stop`. */
  start(): void {
    this.#loop ??= (async () => {
      while (!this.#stop.signal.aborted) {
        await this.tryAcquireOrRenew().catch((error: unknown) =>
          this.logger.warn(
            { err: error instanceof Error ? error.message : String(error) },
            "lease: could not reach the API",
          ),
        );
        await sleep(this.timings.retryMs, this.#stop.signal);
      }
    })();
  }

  /** One attempt; true when this listener holds the lease afterwards. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const seconds = Math.ceil(this.timings.leaseDurationMs / 1000);
    const current = await this.lease.read();
    if (!current) {
      if (await this.lease.create(this.identity, seconds)) return this.#promote(0);
      return false;
    }
    // Expiry is judged on this listener's clock from when it first saw the lease's current
    // version (as client-go does), not from renewTime: the holder's clock may differ from ours.
    if (this.#observed?.version !== current.version) {
      this.#observed = { holder: current.holder, version: current.version, at: this.now() };
    }
    const mine = current.holder === this.identity;
    const expired = !current.holder || this.now() - this.#observed.at > current.durationSeconds * 1000;
    if (!mine && !expired) {
      if (this.#leading) this.#demote(`the lease is held by ${current.holder}`);
      return false;
    }
    const transitions = mine ? current.transitions : current.transitions + 1;
    if (await this.lease.update(current, { holder: this.identity, durationSeconds: seconds, transitions })) {
      return this.#promote(transitions);
    }
    return false;
  }

  /** Stops electing; a leader releases its lease (holder cleared) so a standby takes over at once. */
  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#loop;
    if (!this.#leading) return;
    this.#leading = false;
    const current = await this.lease.read().catch(() => undefined);
    if (current?.holder === this.identity) {
      await this.lease
        .update(current, { holder: null, durationSeconds: 1, transitions: current.transitions })
        .catch(() => false);
    }
  }

  #promote(transitions: number): true {
    if (!this.#leading) this.logger.info({ identity: this.identity, transitions }, "lease acquired: leading");
    this.#leading = true;
    this.#renewedAt = this.now();
    return true;
  }

  #demote(why: string): void {
    this.#leading = false;
    this.logger.warn({ identity: this.identity, why }, "lease lost: standing by");
  }
}
