// What a real Kubernetes API server refuses, end to end (issue 26): the same deployment name in
// two workspaces and one namespace, names that differ only past the 58th character, a long name's
// Postgres pods, a growing database claim, and a deployment using every pod field the spec allows
// (labels, annotations, native and plain sidecars, init containers, volumes, a service account)
// in a namespace that enforces the `restricted` Pod Security Standard. Inputs the cluster would
// refuse are refused by the API first (422 with the field's path). kube-apiserver,
// controller-manager, scheduler, etcd and kwok come from packages/testkit/kube.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { KubeCluster, KubeObjectJson } from "@berth-platform/testkit";
import { type ApiResult, ControlPlaneUnderTest, eventually } from "./control-plane-helpers.js";
import { clusterForTests, type ListenerProcess, spawnListener } from "./listener-helpers.js";

const DEPLOYMENT_LABEL = "berth.dev/deployment-id";
const COMPONENT_LABEL = "berth.dev/component";
const NS = "shared";

const { cluster: started, skip } = await clusterForTests("the real-cluster listener rules tests", {
  namespaces: [NS],
  podSecurity: "restricted",
});
const cluster = started as KubeCluster;

const plane = new ControlPlaneUnderTest("e2e-listener-rules-admin-key-0123456789", ["--no-example"], {
  BERTH_PROVISION_INTERVAL_MS: "200",
  BERTH_LISTENER_TIMEOUT_SECS: "3",
});
const listeners: ListenerProcess[] = [];

before(async () => {
  if (!skip) await plane.start();
});

after(async () => {
  for (const listener of listeners) await listener.stop("SIGTERM");
  if (!skip) {
    await plane.stop();
    await cluster.stop();
  }
  plane.cleanup();
});

/** A call in one workspace (the admin key reaches both). */
async function api(tenant: string, method: string, url: string, body?: unknown): Promise<ApiResult> {
  const res = await fetch(`${plane.url}${url}`, {
    method,
    headers: {
      "X-Api-Key": plane.key,
      "X-Tenant-Id": tenant,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

async function waitForStatus(tenant: string, deploymentId: string, revisionId: string, wanted: string) {
  let last = "";
  await eventually(
    async () => {
      const res = await api(tenant, "GET", `/v2/deployments/${deploymentId}/revisions/${revisionId}`);
      last = res.json?.status;
      if (last?.endsWith("_FAILED") && last !== wanted) return true;
      return last === wanted;
    },
    `revision ${revisionId} is ${wanted}`,
    120_000,
  );
  if (last !== wanted) {
    const log = await api(
      tenant,
      "GET",
      `/v2/deployments/${deploymentId}/revisions/${revisionId}/logs?type=deploy`,
    );
    assert.fail(
      `revision ${revisionId} is ${last}, expected ${wanted}\n${JSON.stringify(log.json)}\n${context()}`,
    );
  }
}

const context = () =>
  `${listeners.flatMap((l) => l.output().split("\n").slice(-8)).join("\n")}\n${cluster.logs(6)}`;

async function startListenerIn(tenant: string, name: string): Promise<string> {
  const created = await api(tenant, "POST", "/v2/listeners", {
    compute_type: "k8s",
    compute_id: name,
    compute_config: { k8s_namespaces: [NS] },
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  listeners.push(
    spawnListener({
      controlPlaneUrl: plane.url,
      listenerId: created.json.id,
      key: created.json.listener_key,
      kubeconfig: cluster.kubeconfig,
      namespace: NS,
    }),
  );
  return created.json.id;
}

async function create(tenant: string, listenerId: string, name: string, extra: Record<string, unknown> = {}) {
  const res = await api(tenant, "POST", "/v2/deployments", {
    name,
    source: "external_container",
    source_config: {
      resource_spec: {},
      listener_id: listenerId,
      listener_config: { k8s_namespace: NS },
      ...extra,
    },
    source_revision_config: { image_uri: `registry.example/${name.slice(0, 40)}:1` },
    secrets: [],
  });
  assert.equal(res.status, 201, JSON.stringify(res.json));
  return res.json as { id: string; latest_revision_id: string };
}

const objectsOf = async (kind: string, deploymentId: string) =>
  cluster.list(kind, NS, `${DEPLOYMENT_LABEL}=${deploymentId}`);
const names = (objects: KubeObjectJson[]) => objects.map((o) => o.metadata.name).sort();

describe("the listener against a real API server: tenancy, names, storage, every allowed field", {
  skip,
}, () => {
  let first = "";
  let second = "";
  let listenerFirst = "";
  let listenerSecond = "";

  before(async () => {
    if (skip) return;
    const workspaces = await plane.get("/api/v1/workspaces");
    first = workspaces[0].id;
    const created = await plane.api("POST", "/api/v1/workspaces", { display_name: "second" });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    second = created.json.id;
    listenerFirst = await startListenerIn(first, "cluster-a");
    listenerSecond = await startListenerIn(second, "cluster-b");
  });

  it("one name in two workspaces, one namespace: each has its own objects, deleting one leaves the other", async () => {
    const a = await create(first, listenerFirst, "same-name");
    const b = await create(second, listenerSecond, "same-name");
    await waitForStatus(first, a.id, a.latest_revision_id, "DEPLOYED");
    await waitForStatus(second, b.id, b.latest_revision_id, "DEPLOYED");
    const secretsA = names(await objectsOf("secrets", a.id));
    const secretsB = names(await objectsOf("secrets", b.id));
    assert.equal(secretsA.length, 1);
    assert.equal(secretsB.length, 1);
    assert.notDeepEqual(secretsA, secretsB, "each deployment has a Secret of its own");
    const urlA = (await api(first, "GET", `/v2/deployments/${a.id}`)).json.source_config.custom_url;
    const urlB = (await api(second, "GET", `/v2/deployments/${b.id}`)).json.source_config.custom_url;
    assert.notEqual(urlA, urlB, "two deployments are never reported at one URL");
    // Each API Deployment runs its own image.
    const apiB = (await objectsOf("deployments", b.id)).find(
      (o) => o.metadata.labels?.[COMPONENT_LABEL] === "api",
    );
    assert.match(JSON.stringify(apiB?.spec), /registry\.example\/same-name:1/);

    assert.equal((await api(first, "DELETE", `/v2/deployments/${a.id}`)).status, 204);
    await eventually(
      async () => (await objectsOf("deployments", a.id)).length === 0,
      "a's objects are gone",
      60_000,
    );
    const stillB = await objectsOf("deployments", b.id);
    assert.equal(stillB.length, 2, "b keeps its API and queue Deployments");
    assert.equal(
      (await api(second, "GET", `/v2/deployments/${b.id}`)).json.latest_revision_id,
      b.latest_revision_id,
    );
    const revisionB = await api(second, "GET", `/v2/deployments/${b.id}/revisions/${b.latest_revision_id}`);
    assert.equal(revisionB.json.status, "DEPLOYED");
  });

  it("names that differ only past the 58th character, each 63 long: separate objects, Postgres pods included", async () => {
    const stem = "a-deployment-name-that-runs-on-and-on-past-fifty-eight-chars";
    const [x, y] = [
      await create(first, listenerFirst, `${stem}-x`),
      await create(first, listenerFirst, `${stem}-y`),
    ];
    await waitForStatus(first, x.id, x.latest_revision_id, "DEPLOYED");
    await waitForStatus(first, y.id, y.latest_revision_id, "DEPLOYED");
    const all = [
      ...names(await objectsOf("statefulsets", x.id)),
      ...names(await objectsOf("statefulsets", y.id)),
    ];
    assert.equal(new Set(all).size, 4, `four StatefulSets of two deployments: ${all.join(", ")}`);
    for (const name of all) assert.ok(name.length <= 52, `${name} leaves room for its pods' labels`);
    // The StatefulSet controller makes the pods (a name too long for controller-revision-hash made none).
    await eventually(
      async () => {
        const pods = await cluster.list(
          "pods",
          NS,
          `${DEPLOYMENT_LABEL}=${x.id},${COMPONENT_LABEL}=postgres`,
        );
        return pods.length === 1;
      },
      `the long name's Postgres pod exists\n${context()}`,
      60_000,
    );
    for (const d of [x, y]) assert.equal((await api(first, "DELETE", `/v2/deployments/${d.id}`)).status, 204);
  });

  it("a larger db_storage_gi grows the bound claim; a smaller one is refused", async () => {
    const d = await create(first, listenerFirst, "growing-db", { resource_spec: { db_storage_gi: 10 } });
    await waitForStatus(first, d.id, d.latest_revision_id, "DEPLOYED");
    const [sts] = (await objectsOf("statefulsets", d.id)).filter(
      (o) => o.metadata.labels?.[COMPONENT_LABEL] === "postgres",
    );
    assert.ok(sts, "the Postgres StatefulSet exists");
    // The StatefulSet controller names its claims <template>-<set>-<ordinal>.
    const claimOf = () => cluster.get("pvc", NS, `data-${sts.metadata.name}-0`);
    await eventually(
      async () => (await claimOf())?.status?.phase === "Bound",
      `the database claim is bound\n${context()}`,
      60_000,
    );
    const grown = await api(first, "PATCH", `/v2/deployments/${d.id}`, {
      source_config: { resource_spec: { db_storage_gi: 20 } },
    });
    assert.equal(grown.status, 200, JSON.stringify(grown.json));
    await waitForStatus(first, d.id, grown.json.latest_revision_id, "DEPLOYED");
    const claim = await claimOf();
    assert.equal(
      (claim?.spec as { resources?: { requests?: { storage?: string } } } | undefined)?.resources?.requests
        ?.storage,
      "20Gi",
    );
    await eventually(
      async () =>
        ((await claimOf())?.status as { capacity?: { storage?: string } })?.capacity?.storage === "20Gi",
      "the claim's capacity grows",
      60_000,
    );
    const shrink = await api(first, "PATCH", `/v2/deployments/${d.id}`, {
      source_config: { resource_spec: { db_storage_gi: 5 } },
    });
    assert.equal(shrink.status, 422, JSON.stringify(shrink.json));
    assert.match(JSON.stringify(shrink.json.detail), /db_storage_gi/);
    assert.equal((await api(first, "DELETE", `/v2/deployments/${d.id}`)).status, 204);
  });

  it("every pod field the spec allows is DEPLOYED under the restricted Pod Security Standard", async () => {
    const applied = await cluster.kubectl(["create", "serviceaccount", "agent-sa", "-n", NS]);
    assert.equal(applied.code, 0, applied.stderr);
    const restricted = {
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
      runAsNonRoot: true,
      seccompProfile: { type: "RuntimeDefault" },
    };
    const d = await create(first, listenerFirst, "every-field", {
      resource_spec: {
        labels: { team: "agents", "example.com/tier": "gold" },
        annotations: { "example.com/owner": "platform team" },
        service_account_name: "agent-sa",
        volumes: [
          { name: "cache", emptyDir: {} },
          { name: "config", configMap: { name: "agent-config", optional: true } },
        ],
        volume_mounts: [
          { name: "cache", mountPath: "/cache" },
          { name: "config", mountPath: "/etc/agent", readOnly: true },
        ],
        init_containers: [
          {
            name: "migrate",
            image: "registry.example/migrate:1",
            command: ["true"],
            securityContext: restricted,
          },
        ],
        sidecars: [
          {
            name: "proxy",
            image: "registry.example/proxy:1",
            restartPolicy: "Always",
            securityContext: restricted,
          },
          { name: "metrics", image: "registry.example/metrics:1", securityContext: restricted },
        ],
      },
    });
    await waitForStatus(first, d.id, d.latest_revision_id, "DEPLOYED");
    const [pod] = await cluster.list("pods", NS, `${DEPLOYMENT_LABEL}=${d.id},${COMPONENT_LABEL}=api`);
    assert.ok(pod, "the API pod was admitted");
    assert.equal(pod.metadata.labels?.team, "agents");
    assert.equal(pod.metadata.annotations?.["example.com/owner"], "platform team");
    type PodSpec = {
      serviceAccountName: string;
      initContainers: Array<{ name: string; restartPolicy?: string }>;
      containers: Array<{ name: string }>;
    };
    const spec = pod.spec as unknown as PodSpec;
    assert.equal(spec.serviceAccountName, "agent-sa");
    assert.deepEqual(
      spec.initContainers.map((c) => [c.name, c.restartPolicy ?? null]),
      [
        ["migrate", null],
        ["proxy", "Always"],
      ],
      "the restartPolicy: Always sidecar is a native sidecar",
    );
    assert.deepEqual(spec.containers.map((c) => c.name).sort(), ["api", "metrics"]);
    assert.equal((await api(first, "DELETE", `/v2/deployments/${d.id}`)).status, 204);
  });

  it("what the cluster would refuse is refused by the API first, with the field's path", async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ["a label value with a space", { labels: { team: "the agents" } }, /labels/],
      ["a sidecar named api", { sidecars: [{ name: "api", image: "x/y:1" }] }, /sidecars/],
      [
        "two mounts on one path",
        {
          volumes: [
            { name: "a", emptyDir: {} },
            { name: "b", emptyDir: {} },
          ],
          volume_mounts: [
            { name: "a", mountPath: "/data" },
            { name: "b", mountPath: "/data" },
          ],
        },
        /volume_mounts/,
      ],
      [
        "a service account that is not a DNS name",
        { service_account_name: "Agent_SA" },
        /service_account_name/,
      ],
      [
        "an unknown field inside a volume",
        { volumes: [{ name: "a", emptyDir: {}, surprise: 1 }] },
        /volumes/,
      ],
      [
        "a volume with two sources",
        { volumes: [{ name: "a", emptyDir: {}, configMap: { name: "c" } }] },
        /volumes/,
      ],
      ["min_scale 0", { min_scale: 0 }, /min_scale/],
    ];
    for (const [what, resource_spec, field] of cases) {
      const res = await api(first, "POST", "/v2/deployments", {
        name: "refused",
        source: "external_container",
        source_config: { resource_spec, listener_id: listenerFirst, listener_config: { k8s_namespace: NS } },
        source_revision_config: { image_uri: "registry.example/refused:1" },
        secrets: [],
      });
      assert.equal(res.status, 422, `${what}: ${JSON.stringify(res.json)}`);
      assert.match(JSON.stringify(res.json.detail[0].loc), field, what);
    }
    const noImage = await api(first, "POST", "/v2/deployments", {
      name: "no-image",
      source: "external_container",
      source_config: {
        resource_spec: {},
        listener_id: listenerFirst,
        listener_config: { k8s_namespace: NS },
      },
      source_revision_config: {},
      secrets: [],
    });
    assert.equal(noImage.status, 422, JSON.stringify(noImage.json));
    assert.match(JSON.stringify(noImage.json.detail), /image_uri/);
  });
});
