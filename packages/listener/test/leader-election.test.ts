// LeaderElector's rules on an in-memory Lease with optimistic versions (a fake for speed; the real
// Lease on a kube-apiserver is exercised in test/e2e/listener-kubernetes-install.test.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LeaderElector, type LeasePort, type LeaseRecord, parseListenerConfig } from "../src/index.js";

class MemoryLease implements LeasePort {
  record: LeaseRecord | undefined;
  #version = 0;
  reachable = true;

  async read() {
    if (!this.reachable) throw new Error("unreachable");
    return this.record ? { ...this.record } : undefined;
  }
  async create(holder: string, durationSeconds: number) {
    if (this.record) return false;
    this.record = { holder, renewedAt: 0, durationSeconds, transitions: 0, version: String(++this.#version) };
    return true;
  }
  async update(
    previous: LeaseRecord,
    next: { holder: string | null; durationSeconds: number; transitions: number },
  ) {
    if (!this.reachable) throw new Error("unreachable");
    if (this.record?.version !== previous.version) return false;
    this.record = { ...next, renewedAt: 0, version: String(++this.#version) };
    return true;
  }
}

const quiet = { info() {}, warn() {}, error() {} };
const timings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryMs: 2_000 };

describe("LeaderElector", () => {
  it("one of two wins; the other takes over only after the lease went unrenewed for its duration", async () => {
    let now = 0;
    const lease = new MemoryLease();
    const a = new LeaderElector(lease, "a", timings, quiet, () => now);
    const b = new LeaderElector(lease, "b", timings, quiet, () => now);
    assert.equal(await a.tryAcquireOrRenew(), true);
    assert.equal(await b.tryAcquireOrRenew(), false);
    now = 10_000;
    assert.equal(await a.tryAcquireOrRenew(), true, "the holder renews");
    assert.equal(await b.tryAcquireOrRenew(), false, "b saw a new version: its clock restarts");
    now = 24_000;
    assert.equal(await b.tryAcquireOrRenew(), false, "14 s without renewal: not yet expired");
    now = 25_001;
    assert.equal(await b.tryAcquireOrRenew(), true, "15 s without renewal: b takes over");
    assert.equal(lease.record?.transitions, 1);
    assert.equal(a.leading, false, "a passed its renew deadline and stands down");
  });

  it("a leader that cannot renew within the renew deadline stops acting", async () => {
    let now = 0;
    const lease = new MemoryLease();
    const a = new LeaderElector(lease, "a", timings, quiet, () => now);
    await a.tryAcquireOrRenew();
    lease.reachable = false;
    now = 9_000;
    await a.tryAcquireOrRenew().catch(() => undefined);
    assert.equal(a.leading, true);
    now = 10_001;
    assert.equal(a.leading, false);
  });

  it("a clean stop gives the lease up so a standby leads at once", async () => {
    let now = 0;
    const lease = new MemoryLease();
    const a = new LeaderElector(lease, "a", timings, quiet, () => now);
    const b = new LeaderElector(lease, "b", timings, quiet, () => now);
    await a.tryAcquireOrRenew();
    assert.equal(await b.tryAcquireOrRenew(), false);
    await a.stop();
    assert.equal(lease.record?.holder, null);
    now = 1;
    assert.equal(await b.tryAcquireOrRenew(), true);
  });

  it("the listener's config names one Lease per listener id, beside its pod or its first namespace", () => {
    const base = { controlPlane: "https://cp.example", listenerId: "7D3F6C1E-0000-4000-8000-00000000000A" };
    const env = { BERTH_LISTENER_KEY: "k" };
    const inPod = parseListenerConfig({
      flags: { ...base, namespace: ["agents"] },
      env,
      podNamespace: "berth-system",
    });
    assert.deepEqual(inPod.leaderElection, {
      namespace: "berth-system",
      name: "berth-listener-7d3f6c1e-0000-4000-8000-00000000000a",
      leaseDurationMs: 15_000,
    });
    const outside = parseListenerConfig({
      flags: { ...base, namespace: ["agents"], leaseDuration: "4" },
      env,
    });
    assert.equal(outside.leaderElection?.namespace, "agents");
    assert.equal(outside.leaderElection?.leaseDurationMs, 4_000);
    assert.equal(parseListenerConfig({ flags: { ...base, leaderElect: false }, env }).leaderElection, null);
    assert.throws(
      () => parseListenerConfig({ flags: { ...base, leaseDuration: "1" }, env }),
      /lease-duration/,
    );
  });
});
