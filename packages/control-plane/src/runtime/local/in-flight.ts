/** Proxied requests of one agent: in flight, and not yet answered; who waits for either to be none. */
interface Counts {
  count: number;
  unanswered: number;
  idle: Array<() => void>;
  answered: Array<() => void>;
}

/** One request's marks: its response began, it is over (each counts once). */
export interface TrackedRequest {
  responded(): void;
  release(): void;
}

/**
 * Counts the proxied requests each agent server has in flight, so a revision switch can wait for
 * the old one's requests: until all are over (the hold), or until all have been taken in (their
 * responses begun: the switch without a hold stops it only then, so no request reaches it after
 * it began refusing new ones).
 */
export class InFlightRequests<K> {
  readonly #counts = new Map<K, Counts>();

  /** Counts one request to `key` from now on. */
  track(key: K): TrackedRequest {
    const entry = this.#counts.get(key) ?? { count: 0, unanswered: 0, idle: [], answered: [] };
    this.#counts.set(key, entry);
    entry.count += 1;
    entry.unanswered += 1;
    let released = false;
    let responded = false;
    const respond = () => {
      if (responded) return;
      responded = true;
      entry.unanswered -= 1;
      if (entry.unanswered === 0) for (const resolve of entry.answered.splice(0)) resolve();
    };
    return {
      responded: respond,
      release: () => {
        if (released) return;
        released = true;
        respond();
        entry.count -= 1;
        if (entry.count === 0) for (const resolve of entry.idle.splice(0)) resolve();
      },
    };
  }

  /**
   * Resolves once `key` has no request in flight (`idle`) or none still waiting for its response
   * to begin (`answered`), or after `timeoutMs`.
   */
  async waitFor(key: K, what: "idle" | "answered", timeoutMs: number): Promise<void> {
    const entry = this.#counts.get(key);
    if (!entry || (what === "idle" ? entry.count : entry.unanswered) === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => entry[what].push(resolve)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
  }

  /** Stops counting for `key` (its process is gone). */
  forget(key: K): void {
    this.#counts.delete(key);
  }
}
