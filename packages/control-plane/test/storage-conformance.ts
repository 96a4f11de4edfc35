// The storage port's contract, written once so every adapter (SQLite, PostgreSQL) runs it.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import type { Deployment, Revision } from "../src/domain/types.js";
import { ConflictError } from "../src/errors.js";
import type { ControlPlaneStorage } from "../src/storage/types.js";
import { otherStoreCases } from "./storage-conformance-stores.js";
import { traceStoreCases } from "./storage-conformance-traces.js";
import { fixture, nextRevision } from "./storage-fixtures.js";

/** Runs the storage contract against the adapter `open` returns. */
export function storageConformance(
  adapter: string,
  open: () => Promise<{ storage: ControlPlaneStorage; close(): Promise<void> }>,
) {
  describe(`storage conformance: ${adapter}`, () => {
    let storage: ControlPlaneStorage;
    let close: () => Promise<void>;
    const tenantA = randomUUID();
    const tenantB = randomUUID();
    before(async () => {
      ({ storage, close } = await open());
      const now = new Date().toISOString();
      await storage.tenants.create({ id: tenantA, name: "a", created_at: now });
      await storage.tenants.create({ id: tenantB, name: "b", created_at: now });
    });
    after(async () => close());

    it("reads are tenant-scoped and round-trip every field, secrets included", async () => {
      const f = fixture(tenantA, "round-trip");
      // The real service's vocabulary (issue 13) is the non-default value: it must come back.
      const deployment: Deployment = { ...f.deployment, vocabulary: "real" };
      await storage.deployments.create(deployment, f.revision, f.project);
      assert.deepEqual(await storage.deployments.get(tenantA, f.deployment.id), deployment);
      assert.equal(await storage.deployments.get(tenantB, f.deployment.id), undefined);
      assert.deepEqual(await storage.revisions.get(tenantA, f.deployment.id, f.revision.id), f.revision);
      assert.equal(await storage.revisions.get(tenantB, f.deployment.id, f.revision.id), undefined);
      assert.deepEqual(await storage.projects.get(tenantA, f.project.id), f.project);
      assert.equal(await storage.projects.get(tenantB, f.project.id), undefined);
    });

    it("a taken deployment or project name is a ConflictError within a tenant only", async () => {
      const f = fixture(tenantA, "unique-name");
      await storage.deployments.create(f.deployment, f.revision, f.project);
      const again = fixture(tenantA, "unique-name");
      await assert.rejects(
        storage.deployments.create(again.deployment, again.revision, again.project),
        (error) => error instanceof ConflictError && /'unique-name' already exists/.test(error.message),
      );
      assert.equal(await storage.deployments.get(tenantA, again.deployment.id), undefined);
      const other = fixture(tenantB, "unique-name");
      await storage.deployments.create(other.deployment, other.revision, other.project);
    });

    it("of two concurrent creates with one name, one wins and the other is a ConflictError", async () => {
      const racers = [fixture(tenantA, "race"), fixture(tenantA, "race")];
      const results = await Promise.allSettled(
        racers.map((f) => storage.deployments.create(f.deployment, f.revision, f.project)),
      );
      assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
      const lost = results.find((r) => r.status === "rejected");
      assert.ok(lost?.status === "rejected" && lost.reason instanceof ConflictError, String(lost));
      const listed = await storage.deployments.list(tenantA, { name: "race", limit: 10, offset: 0 });
      assert.equal(listed.length, 1);
    });

    it("saveWithRevision skips waiting revisions, not ones with work under way", async () => {
      const f = fixture(tenantA, "supersede");
      await storage.deployments.create(f.deployment, f.revision, f.project);
      const building = nextRevision(f.deployment);
      // It names the revisions it skipped (their logs say why).
      assert.deepEqual(await storage.deployments.saveWithRevision(f.deployment, building), [f.revision.id]);
      assert.ok(
        await storage.revisions.setStatus(building.id, "CREATING", "AWAITING_BUILD", building.created_at),
      );
      assert.ok(
        await storage.revisions.setStatus(building.id, "AWAITING_BUILD", "BUILDING", building.created_at),
      );
      assert.equal(
        await storage.revisions.setStatus(building.id, "CREATING", "QUEUED", building.created_at),
        false,
      );
      const newest = nextRevision(f.deployment);
      assert.deepEqual(
        await storage.deployments.saveWithRevision(
          { ...f.deployment, latest_revision_id: newest.id },
          newest,
        ),
        [],
      );
      const list = await storage.revisions.list(tenantA, f.deployment.id, { limit: 10, offset: 0 });
      assert.deepEqual(
        list.map((r) => [r.id, r.status]),
        [
          [newest.id, "CREATING"],
          [building.id, "BUILDING"],
          [f.revision.id, "SKIPPED"],
        ],
      );
      const skipped = await storage.revisions.list(tenantA, f.deployment.id, {
        statuses: ["SKIPPED"],
        limit: 10,
        offset: 0,
      });
      assert.deepEqual(
        skipped.map((r) => r.id),
        [f.revision.id],
      );
      assert.equal((await storage.deployments.get(tenantA, f.deployment.id))?.latest_revision_id, newest.id);
    });

    it("lists newest first with name, substring, status and id filters", async () => {
      const tenant = randomUUID();
      await storage.tenants.create({ id: tenant, name: "list", created_at: new Date().toISOString() });
      const made: Deployment[] = [];
      for (const name of ["alpha", "beta", "alphabet"]) {
        const f = fixture(tenant, name);
        await storage.deployments.create(f.deployment, f.revision, f.project);
        made.push(f.deployment);
      }
      const page = { limit: 10, offset: 0 };
      const names = async (filter: Record<string, unknown>) =>
        (await storage.deployments.list(tenant, { ...page, ...filter })).map((d) => d.name);
      assert.deepEqual(await names({}), ["alphabet", "beta", "alpha"]);
      assert.deepEqual(await names({ nameContains: "alpha" }), ["alphabet", "alpha"]);
      // A literal substring: LIKE's wildcards match only themselves.
      assert.deepEqual(await names({ nameContains: "_lpha" }), []);
      assert.deepEqual(await names({ nameContains: "%" }), []);
      assert.deepEqual(await names({ nameContains: "ALPHA" }), []);
      assert.deepEqual(await names({ name: "alpha" }), ["alpha"]);
      assert.deepEqual(await names({ ids: [made[1]?.id] }), ["beta"]);
      assert.deepEqual(await names({ ids: [made[0]?.id, made[2]?.id, randomUUID()] }), ["alphabet", "alpha"]);
      assert.deepEqual(await names({ ids: [] }), []);
      assert.deepEqual(await names({ statuses: ["READY"] }), []);
      assert.deepEqual(await names({ limit: 1, offset: 1 }), ["beta"]);
      assert.deepEqual(await names({ limit: 10, offset: 3 }), []);
      assert.deepEqual(await names({ nameContains: "alpha", limit: 1, offset: 1 }), ["alpha"]);
      assert.deepEqual(await names({ statuses: ["AWAITING_DATABASE", "READY"], ids: [made[1]?.id] }), [
        "beta",
      ]);
      assert.ok(
        await storage.deployments.setStatus(
          made[0]?.id ?? "",
          "AWAITING_DATABASE",
          "READY",
          new Date().toISOString(),
        ),
      );
      assert.deepEqual(await names({ statuses: ["READY"] }), ["alpha"]);
      assert.ok((await storage.deployments.listByStatus("READY")).some((d) => d.id === made[0]?.id));
    });

    it("lists a listener's deployments by source_config.listener_id, tenant-scoped", async () => {
      const listenerId = randomUUID();
      const mine = fixture(tenantA, "on-listener");
      mine.deployment.source_config = { ...mine.deployment.source_config, listener_id: listenerId };
      const other = fixture(tenantA, "off-listener");
      for (const f of [mine, other]) await storage.deployments.create(f.deployment, f.revision, f.project);
      const ids = async (tenant: string) =>
        (await storage.deployments.listByListener(tenant, listenerId)).map((d) => d.id);
      assert.deepEqual(await ids(tenantA), [mine.deployment.id]);
      assert.deepEqual(await ids(tenantB), []);
    });

    it("remove keeps the tracing project (detached) unless asked", async () => {
      const keep = fixture(tenantA, "remove-keep");
      const drop = fixture(tenantA, "remove-drop");
      for (const f of [keep, drop]) await storage.deployments.create(f.deployment, f.revision, f.project);
      await storage.deployments.remove(keep.deployment.id, false);
      await storage.deployments.remove(drop.deployment.id, true);
      assert.equal(await storage.deployments.get(tenantA, keep.deployment.id), undefined);
      assert.equal(await storage.revisions.get(tenantA, keep.deployment.id, keep.revision.id), undefined);
      assert.deepEqual(await storage.projects.get(tenantA, keep.project.id), {
        ...keep.project,
        deployment_id: null,
      });
      assert.equal(await storage.projects.get(tenantA, drop.project.id), undefined);
    });

    it("setStatus is a compare-and-set that stamps updated_at", async () => {
      const f = fixture(tenantA, "cas");
      await storage.deployments.create(f.deployment, f.revision, f.project);
      const later = new Date(Date.now() + 1000).toISOString();
      assert.equal(await storage.deployments.setStatus(f.deployment.id, "READY", "UNUSED", later), false);
      assert.equal(
        await storage.deployments.setStatus(randomUUID(), "AWAITING_DATABASE", "READY", later),
        false,
      );
      assert.ok(await storage.deployments.setStatus(f.deployment.id, "AWAITING_DATABASE", "READY", later));
      const stored = await storage.deployments.get(tenantA, f.deployment.id);
      assert.deepEqual([stored?.status, stored?.updated_at], ["READY", later]);
      assert.equal(
        await storage.revisions.setStatus(f.revision.id, "QUEUED", "AWAITING_BUILD", later),
        false,
      );
      assert.ok(await storage.revisions.setStatus(f.revision.id, "CREATING", "QUEUED", later));
      const revision = await storage.revisions.get(tenantA, f.deployment.id, f.revision.id);
      assert.deepEqual([revision?.status, revision?.updated_at], ["QUEUED", later]);
    });

    it("save changes deployment-level fields, only within the deployment's tenant", async () => {
      const f = fixture(tenantA, "save");
      await storage.deployments.create(f.deployment, f.revision, f.project);
      const changed: Deployment = {
        ...f.deployment,
        display_name: "Saved",
        secrets: [{ name: "B", value: "secret-b" }],
        delete_tracing_project: true,
        updated_at: new Date(Date.now() + 1000).toISOString(),
      };
      await storage.deployments.save(changed);
      assert.deepEqual(await storage.deployments.get(tenantA, f.deployment.id), changed);
      await storage.deployments.save({ ...changed, tenant_id: tenantB, display_name: "Foreign" });
      assert.equal((await storage.deployments.get(tenantA, f.deployment.id))?.display_name, "Saved");
    });

    it("listWaiting and listInStatus give revisions oldest first, across tenants", async () => {
      const made = [fixture(tenantA, "wait-a"), fixture(tenantB, "wait-b"), fixture(tenantA, "wait-c")];
      for (const f of made) await storage.deployments.create(f.deployment, f.revision, f.project);
      const [a, b, c] = made.map((f) => f.revision);
      const now = new Date().toISOString();
      assert.ok(await storage.revisions.setStatus(b?.id ?? "", "CREATING", "QUEUED", now));
      assert.ok(await storage.revisions.setStatus(c?.id ?? "", "CREATING", "QUEUED", now));
      assert.ok(await storage.revisions.setStatus(c?.id ?? "", "QUEUED", "AWAITING_BUILD", now));
      const ours = new Set(made.map((f) => f.revision.id));
      const mine = (list: Revision[]) => list.filter((r) => ours.has(r.id)).map((r) => [r.id, r.status]);
      assert.deepEqual(mine(await storage.revisions.listWaiting()), [
        [a?.id, "CREATING"],
        [b?.id, "QUEUED"],
      ]);
      assert.deepEqual(mine(await storage.revisions.listInStatus(["AWAITING_BUILD", "CREATING"])), [
        [a?.id, "CREATING"],
        [c?.id, "AWAITING_BUILD"],
      ]);
      assert.deepEqual(await storage.revisions.listInStatus([]), []);
      // The full record comes back, secrets opened.
      assert.deepEqual(
        (await storage.revisions.listWaiting()).find((r) => r.id === a?.id),
        made[0]?.revision,
      );
    });

    it("revisions: paging, statusesOf and the resolved source revision config", async () => {
      const f = fixture(tenantA, "revisions");
      await storage.deployments.create(f.deployment, f.revision, f.project);
      const second = nextRevision(f.deployment);
      await storage.deployments.saveWithRevision(f.deployment, second);
      const page = await storage.revisions.list(tenantA, f.deployment.id, { limit: 1, offset: 1 });
      assert.deepEqual(
        page.map((r) => r.id),
        [f.revision.id],
      );
      assert.deepEqual(await storage.revisions.list(tenantB, f.deployment.id, { limit: 10, offset: 0 }), []);
      assert.deepEqual(
        (await storage.revisions.statusesOf(f.deployment.id)).sort((x, y) => x.id.localeCompare(y.id)),
        [
          { id: f.revision.id, status: "SKIPPED" },
          { id: second.id, status: "CREATING" },
        ].sort((x, y) => x.id.localeCompare(y.id)),
      );
      const resolved = { ...second.source_revision_config, image_uri: "img:resolved" };
      const later = new Date(Date.now() + 1000).toISOString();
      await storage.revisions.setSourceRevisionConfig(second.id, resolved, later);
      assert.deepEqual(await storage.revisions.get(tenantA, f.deployment.id, second.id), {
        ...second,
        source_revision_config: resolved,
        updated_at: later,
      });
    });

    it("API keys map to tenants by hash", async () => {
      await storage.tenants.addKey("hash-1", [tenantA, tenantB], new Date().toISOString());
      // Adding a known key again is harmless (bootstrap may run on every start).
      await storage.tenants.addKey("hash-1", [tenantA], new Date().toISOString());
      assert.deepEqual((await storage.tenants.tenantsOfKey("hash-1")).sort(), [tenantA, tenantB].sort());
      assert.deepEqual(await storage.tenants.tenantsOfKey("hash-2"), []);
      const count = await storage.tenants.count();
      assert.equal(typeof count, "number");
      assert.ok(count >= 2);
    });

    otherStoreCases(() => ({ storage, tenantA, tenantB }));
    traceStoreCases(() => ({ storage, tenantA, tenantB }));
  });
}
