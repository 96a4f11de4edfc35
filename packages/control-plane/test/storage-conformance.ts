// The storage port's contract, written once so every adapter (SQLite now, PostgreSQL later) runs it.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { planCreate } from "../src/domain/deployment.js";
import type { Deployment, Revision } from "../src/domain/types.js";
import { ConflictError } from "../src/errors.js";
import { DeploymentCreateRequest } from "../src/schemas/requests.js";
import type { ControlPlaneStorage } from "../src/storage/types.js";

const ctx = { listenerExists: () => false, isUploadPath: () => false };

/** A deployment + first revision + project for `tenant`, built by the real domain code. */
function fixture(tenant: string, name: string) {
  const stamp = { now: new Date().toISOString(), newId: randomUUID };
  const request = DeploymentCreateRequest.parse({
    name,
    source: "external_container",
    source_config: { resource_spec: {} },
    source_revision_config: { image_uri: "img:1" },
    secrets: [{ name: "A", value: "secret-a" }],
  });
  const { deployment, revision } = planCreate(request, tenant, ctx, stamp);
  const project = {
    id: randomUUID(),
    tenant_id: tenant,
    name,
    deployment_id: deployment.id,
    created_at: stamp.now,
  };
  return { deployment, revision, project };
}

function nextRevision(deployment: Deployment): Revision {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    deployment_id: deployment.id,
    tenant_id: deployment.tenant_id,
    source: deployment.source,
    status: "CREATING",
    source_revision_config: deployment.source_revision_config,
    resource_spec: deployment.source_config.resource_spec,
    install_command: null,
    build_command: null,
    secrets: deployment.secrets,
    secret_references: [],
    created_at: now,
    updated_at: now,
  };
}

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
      await storage.deployments.create(f.deployment, f.revision, f.project);
      assert.deepEqual(await storage.deployments.get(tenantA, f.deployment.id), f.deployment);
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
        ConflictError,
      );
      const other = fixture(tenantB, "unique-name");
      await storage.deployments.create(other.deployment, other.revision, other.project);
    });

    it("saveWithRevision skips waiting revisions, not ones with work under way", async () => {
      const f = fixture(tenantA, "supersede");
      await storage.deployments.create(f.deployment, f.revision, f.project);
      const building = nextRevision(f.deployment);
      await storage.deployments.saveWithRevision(f.deployment, building);
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
      await storage.deployments.saveWithRevision({ ...f.deployment, latest_revision_id: newest.id }, newest);
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
      assert.deepEqual(await names({ name: "alpha" }), ["alpha"]);
      assert.deepEqual(await names({ ids: [made[1]?.id] }), ["beta"]);
      assert.deepEqual(await names({ ids: [] }), []);
      assert.deepEqual(await names({ statuses: ["READY"] }), []);
      assert.deepEqual(await names({ limit: 1, offset: 1 }), ["beta"]);
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

    it("API keys map to tenants by hash", async () => {
      await storage.tenants.addKey("hash-1", [tenantA, tenantB], new Date().toISOString());
      assert.deepEqual((await storage.tenants.tenantsOfKey("hash-1")).sort(), [tenantA, tenantB].sort());
      assert.deepEqual(await storage.tenants.tenantsOfKey("hash-2"), []);
      assert.ok((await storage.tenants.count()) >= 2);
    });
  });
}
