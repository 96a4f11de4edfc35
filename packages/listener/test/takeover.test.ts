// ObjectGuard: the read before each apply. Ownership (never take over another deployment's object)
// and the database claim size (expand the claim, recreate the StatefulSet with orphan propagation,
// never shrink). The cluster here is an in-memory stand-in recording calls, for speed: the
// simulator has no PersistentVolumeClaims; the real-cluster e2e test drives the same path.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ClusterPort, type KubeObject, LABELS, objectName, renderRevision } from "../src/index.js";
import { ObjectGuard, RefusedError } from "../src/takeover.js";
import { MINIMAL } from "./fixtures.js";

/** Objects by kind/namespace/name, and the calls made (an in-memory stand-in, named as such). */
class InMemoryCluster implements ClusterPort {
  readonly objects = new Map<string, KubeObject>();
  readonly calls: string[] = [];
  refuseClaims = false;

  put(object: KubeObject): void {
    this.objects.set(
      `${object.kind}/${object.metadata.namespace}/${object.metadata.name}`,
      structuredClone(object),
    );
  }
  async apply(object: KubeObject): Promise<void> {
    this.calls.push(`apply ${object.kind}/${object.metadata.name} ${JSON.stringify(object.spec)}`);
    if (object.kind === "PersistentVolumeClaim" && this.refuseClaims) {
      throw new Error("Kubernetes API 403: only dynamically provisioned pvc can be resized");
    }
  }
  async list(): Promise<KubeObject[]> {
    return [];
  }
  async get(_v: string, kind: string, namespace: string, name: string): Promise<KubeObject | undefined> {
    return this.objects.get(`${kind}/${namespace}/${name}`);
  }
  async delete(object: Pick<KubeObject, "kind" | "metadata">, propagation?: string): Promise<void> {
    this.calls.push(`delete ${object.kind}/${object.metadata.name} ${propagation}`);
    this.objects.delete(`${object.kind}/${object.metadata.namespace}/${object.metadata.name}`);
  }
  async podLogs(): Promise<string> {
    return "";
  }
}

const postgresOf = (gi: number | null) =>
  renderRevision({ ...MINIMAL, resource_spec: { ...MINIMAL.resource_spec, db_storage_gi: gi } }).find(
    (o) => o.kind === "StatefulSet" && o.metadata.name === objectName(MINIMAL, "postgres"),
  ) as KubeObject;
const sizeOf = (sts: KubeObject) =>
  (sts.spec as { volumeClaimTemplates: Array<{ spec: { resources: { requests: { storage: string } } } }> })
    .volumeClaimTemplates[0]?.spec.resources.requests.storage;
const claim = `data-${objectName(MINIMAL, "postgres")}-0`;

function clusterWith(liveGi: number): InMemoryCluster {
  const cluster = new InMemoryCluster();
  cluster.put(postgresOf(liveGi));
  cluster.put({
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name: claim, namespace: "agents" },
    spec: { resources: { requests: { storage: `${liveGi}Gi` } } },
  });
  return cluster;
}

describe("ObjectGuard: ownership", () => {
  it("applies an absent object or this deployment's own as rendered", async () => {
    const cluster = new InMemoryCluster();
    const guard = new ObjectGuard(cluster);
    const [secret] = renderRevision(MINIMAL) as [KubeObject];
    assert.deepEqual((await guard.prepare(secret, MINIMAL.deployment_id)).object, secret);
    cluster.put(secret);
    assert.deepEqual((await guard.prepare(secret, MINIMAL.deployment_id)).object, secret);
  });

  it("refuses an object that another deployment, or no Berth deployment, owns", async () => {
    const cluster = new InMemoryCluster();
    const [secret] = renderRevision(MINIMAL) as [KubeObject];
    cluster.put({
      ...secret,
      metadata: { ...secret.metadata, labels: { [LABELS.deployment]: "someone-else" } },
    });
    const guard = new ObjectGuard(cluster);
    await assert.rejects(guard.prepare(secret, MINIMAL.deployment_id), (e: Error) => {
      assert.ok(e instanceof RefusedError);
      assert.match(e.message, /belongs to another Berth deployment/);
      assert.ok(!e.message.includes("someone-else"));
      return true;
    });
    cluster.put({ ...secret, metadata: { ...secret.metadata, labels: {} } });
    await assert.rejects(guard.prepare(secret, MINIMAL.deployment_id), /belongs to no Berth deployment/);
  });
});

describe("ObjectGuard: the database claim size", () => {
  it("leaves an unchanged size alone", async () => {
    const cluster = clusterWith(10);
    const prepared = await new ObjectGuard(cluster).prepare(postgresOf(null), MINIMAL.deployment_id);
    assert.equal(sizeOf(prepared.object), "10Gi");
    assert.deepEqual(cluster.calls, []);
  });

  it("grows: expands the claim, deletes the StatefulSet with orphan propagation, applies the new template", async () => {
    const cluster = clusterWith(10);
    const prepared = await new ObjectGuard(cluster).prepare(postgresOf(20), MINIMAL.deployment_id);
    assert.equal(sizeOf(prepared.object), "20Gi");
    assert.deepEqual(cluster.calls, [
      `apply PersistentVolumeClaim/${claim} {"resources":{"requests":{"storage":"20Gi"}}}`,
      `delete StatefulSet/${objectName(MINIMAL, "postgres")} Orphan`,
    ]);
    assert.deepEqual(prepared.log, [
      `Expanded PersistentVolumeClaim ${claim} from 10Gi to 20Gi`,
      `Recreated StatefulSet/${objectName(MINIMAL, "postgres")} with 20Gi claims (deleted with orphan propagation: its pod kept running)`,
    ]);
  });

  it("fails with the cluster's reason when the claim cannot be expanded, leaving the StatefulSet in place", async () => {
    const cluster = clusterWith(10);
    cluster.refuseClaims = true;
    await assert.rejects(
      new ObjectGuard(cluster).prepare(postgresOf(20), MINIMAL.deployment_id),
      (e: Error) =>
        e instanceof RefusedError &&
        /refused to expand PersistentVolumeClaim .* from 10Gi to 20Gi .*only dynamically provisioned/.test(
          e.message,
        ),
    );
    assert.ok(!cluster.calls.some((c) => c.startsWith("delete")));
  });

  it("never shrinks: a smaller size (a rollback after growing) keeps the live claim template", async () => {
    const cluster = clusterWith(20);
    const prepared = await new ObjectGuard(cluster).prepare(postgresOf(10), MINIMAL.deployment_id);
    assert.equal(sizeOf(prepared.object), "20Gi");
    assert.deepEqual(cluster.calls, []);
    assert.match(prepared.log[0] ?? "", /keeps its 20Gi claims: a claim cannot shrink to 10Gi/);
  });
});
