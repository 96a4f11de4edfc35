// The storage contract, continued: listeners, revision logs, uploads and tracing projects.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { it } from "node:test";
import type { Listener } from "../src/domain/types.js";
import { BadRequestError, ConflictError } from "../src/errors.js";
import type { ControlPlaneStorage, LogLine, Upload } from "../src/storage/types.js";
import { fixture } from "./storage-fixtures.js";

/** What the cases share with the suite that registers them (read once the suite's `before` ran). */
interface Shared {
  storage: ControlPlaneStorage;
  tenantA: string;
  tenantB: string;
}

function listener(
  tenant: string,
  computeId: string,
  vocabulary: Listener["vocabulary"] = "neutral",
): Listener {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    tenant_id: tenant,
    version: null,
    compute_type: "cluster",
    compute_id: computeId,
    compute_config: { cluster_namespaces: ["default"] },
    vocabulary,
    created_at: now,
    updated_at: now,
    last_seen_at: null,
  };
}

/** Registers the cases of the stores beyond deployments and revisions (inside the suite's describe). */
export function otherStoreCases(shared: () => Shared): void {
  it("listeners: compute_id unique per tenant, newest first, tenant-scoped get/update/delete", async () => {
    const { storage, tenantA, tenantB } = shared();
    const first = listener(tenantA, "cluster-1");
    const second = listener(tenantA, "cluster-2", "real");
    await storage.listeners.create(first, "hash-1");
    await storage.listeners.create(second, "hash-2");
    await assert.rejects(
      storage.listeners.create(listener(tenantA, "cluster-1"), "hash-3"),
      (error) =>
        error instanceof ConflictError && /compute ID 'cluster-1' already exists/.test(error.message),
    );
    const foreign = listener(tenantB, "cluster-1");
    await storage.listeners.create(foreign, "hash-4");
    const ids = async (limit: number, offset: number) =>
      (await storage.listeners.list(tenantA, { limit, offset })).map((l) => l.id);
    assert.deepEqual(await ids(10, 0), [second.id, first.id]);
    assert.deepEqual(await ids(1, 1), [first.id]);
    assert.deepEqual(await storage.listeners.get(tenantA, first.id), first);
    assert.deepEqual(await storage.listeners.get(tenantA, second.id), second, "the vocabulary is kept");
    assert.equal(await storage.listeners.get(tenantB, first.id), undefined);
    const updated: Listener = {
      ...first,
      version: "2",
      compute_config: { cluster_namespaces: null },
      updated_at: new Date(Date.now() + 1000).toISOString(),
    };
    await storage.listeners.update(updated);
    assert.deepEqual(await storage.listeners.get(tenantA, first.id), updated);
    // The listener-facing API: lookup by id alone with the key hash, key rotation, polls.
    assert.deepEqual(await storage.listeners.byIdWithKey(first.id), { listener: updated, keyHash: "hash-1" });
    assert.equal(await storage.listeners.setKeyHash(tenantB, first.id, "hash-5", updated.updated_at), false);
    assert.equal(await storage.listeners.setKeyHash(tenantA, first.id, "hash-5", updated.updated_at), true);
    await storage.listeners.touch(first.id, "2030-01-01T00:00:00.000Z");
    const seen = await storage.listeners.byIdWithKey(first.id);
    assert.equal(seen?.keyHash, "hash-5");
    assert.equal(seen?.listener.last_seen_at, "2030-01-01T00:00:00.000Z");
    assert.equal(await storage.listeners.byIdWithKey(randomUUID()), undefined);
    assert.equal(await storage.listeners.delete(tenantB, first.id), false);
    assert.equal(await storage.listeners.delete(tenantA, first.id), true);
    assert.equal(await storage.listeners.delete(tenantA, first.id), false);
    assert.deepEqual(await storage.listeners.get(tenantB, foreign.id), foreign);
  });

  it("logs: order, cursor, level, literal case-insensitive query, time range, revision and type", async () => {
    const { storage, tenantA } = shared();
    const deploymentId = randomUUID();
    const [r1, r2] = [randomUUID(), randomUUID()];
    // Epoch ms above 2^32: 64-bit columns must come back as the same numbers.
    const t0 = 1_750_000_000_000;
    const line = (
      revision: string,
      i: number,
      level: string,
      message: string,
      type: LogLine["type"] = "build",
    ) => ({
      tenant_id: tenantA,
      deployment_id: deploymentId,
      revision_id: revision,
      type,
      timestamp: t0 + i * 1000,
      level,
      message,
    });
    await storage.logs.append([
      line(r1, 0, "INFO", "Installing"),
      line(r1, 1, "ERROR", "Disk 50% full"),
      line(r1, 2, "INFO", "disk 500 MB free"),
      line(r2, 3, "INFO", "Building"),
      line(r2, 4, "INFO", "Deployed", "deploy"),
    ]);
    await storage.logs.append([]);
    const base = {
      tenantId: tenantA,
      deploymentId,
      type: "build" as const,
      order: "asc" as const,
      limit: 10,
    };
    const all = await storage.logs.query(base);
    assert.deepEqual(
      all.map((l) => l.message),
      ["Installing", "Disk 50% full", "disk 500 MB free", "Building"],
    );
    const [first] = all;
    assert.ok(first && typeof first.seq === "number" && first.timestamp === t0);
    assert.deepEqual(first, { seq: first.seq, ...line(r1, 0, "INFO", "Installing") });
    assert.ok(all.every((l, i) => i === 0 || l.seq > (all[i - 1]?.seq ?? Infinity)));
    const messages = async (extra: Record<string, unknown>) =>
      (await storage.logs.query({ ...base, ...extra })).map((l) => l.message);
    assert.deepEqual(await messages({ order: "desc", limit: 2 }), ["Building", "disk 500 MB free"]);
    assert.deepEqual(await messages({ afterSeq: all[1]?.seq }), ["disk 500 MB free", "Building"]);
    assert.deepEqual(await messages({ order: "desc", afterSeq: all[1]?.seq }), ["Installing"]);
    assert.deepEqual(await messages({ level: "error" }), ["Disk 50% full"]);
    assert.deepEqual(await messages({ query: "DISK" }), ["Disk 50% full", "disk 500 MB free"]);
    assert.deepEqual(await messages({ query: "50%" }), ["Disk 50% full"]);
    assert.deepEqual(await messages({ query: "_isk" }), []);
    assert.deepEqual(await messages({ startTime: t0 + 1000, endTime: t0 + 2000 }), [
      "Disk 50% full",
      "disk 500 MB free",
    ]);
    assert.deepEqual(await messages({ revisionId: r2 }), ["Building"]);
    assert.deepEqual(await messages({ type: "deploy" }), ["Deployed"]);
    assert.deepEqual(await messages({ tenantId: randomUUID() }), []);
  });

  it("uploads: found by token hash, completed once, listed per tenant and deployment", async () => {
    const { storage, tenantA, tenantB } = shared();
    const deploymentId = randomUUID();
    const slot = (tenant: string): Upload => ({
      object_path: `uploads/${deploymentId}/${randomUUID()}.tar.gz`,
      tenant_id: tenant,
      deployment_id: deploymentId,
      token_hash: randomUUID(),
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      size: null,
      completed_at: null,
      created_at: new Date().toISOString(),
    });
    const [done, pending, foreign] = [slot(tenantA), slot(tenantA), slot(tenantB)];
    for (const u of [done, pending, foreign]) await storage.uploads.create(u);
    assert.deepEqual(await storage.uploads.byTokenHash(done.token_hash), done);
    assert.equal(await storage.uploads.byTokenHash("unknown"), undefined);
    const now = new Date().toISOString();
    const size = 5 * 2 ** 32;
    assert.equal(await storage.uploads.complete(done.object_path, size, now), true);
    assert.equal(await storage.uploads.complete(done.object_path, 1, now), false);
    assert.equal(await storage.uploads.complete(foreign.object_path, 1, now), true);
    assert.deepEqual(await storage.uploads.byTokenHash(done.token_hash), {
      ...done,
      size,
      completed_at: now,
    });
    assert.deepEqual(await storage.uploads.completedPaths(tenantA, deploymentId), [done.object_path]);
    assert.deepEqual(await storage.uploads.completedPaths(tenantA, randomUUID()), []);
  });

  it("text holding NUL is refused alike (PostgreSQL cannot store it); log lines keep it as U+FFFD", async () => {
    const { storage, tenantA } = shared();
    const f = fixture(tenantA, "nul");
    await storage.deployments.create(f.deployment, f.revision, f.project);
    const page = { limit: 10, offset: 0 };
    await assert.rejects(
      storage.deployments.list(tenantA, { ...page, nameContains: "n\u0000" }),
      BadRequestError,
    );
    await assert.rejects(storage.projects.list(tenantA, { ...page, name: "\u0000" }), BadRequestError);
    await assert.rejects(
      storage.deployments.save({ ...f.deployment, display_name: "a\u0000b" }),
      BadRequestError,
    );
    assert.equal((await storage.deployments.get(tenantA, f.deployment.id))?.display_name, null);
    const line = {
      tenant_id: tenantA,
      deployment_id: f.deployment.id,
      revision_id: f.revision.id,
      type: "build" as const,
      timestamp: Date.now(),
      level: "INFO",
      message: "a\u0000b",
    };
    await storage.logs.append([line]);
    const [stored] = await storage.logs.query({
      tenantId: tenantA,
      deploymentId: f.deployment.id,
      type: "build",
      order: "asc",
      limit: 10,
    });
    assert.equal(stored?.message, "a\uFFFDb");
  });

  it("tracing projects: newest first, by name, paged, tenant-scoped", async () => {
    const { storage, tenantB } = shared();
    const tenant = randomUUID();
    await storage.tenants.create({ id: tenant, name: "projects", created_at: new Date().toISOString() });
    const made = ["p-one", "p-two", "p-three"].map((name) => fixture(tenant, name));
    for (const f of made) await storage.deployments.create(f.deployment, f.revision, f.project);
    const names = async (filter: { name?: string; limit: number; offset: number }) =>
      (await storage.projects.list(tenant, filter)).map((p) => p.name);
    assert.deepEqual(await names({ limit: 10, offset: 0 }), ["p-three", "p-two", "p-one"]);
    assert.deepEqual(await names({ limit: 1, offset: 1 }), ["p-two"]);
    assert.deepEqual(await names({ name: "p-one", limit: 10, offset: 0 }), ["p-one"]);
    assert.deepEqual(await storage.projects.list(tenantB, { name: "p-one", limit: 10, offset: 0 }), []);
  });
}
