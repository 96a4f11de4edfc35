// End to end, the Kubernetes data plane against a real Kubernetes control plane: kube-apiserver,
// kube-controller-manager, etcd and kwok built from their Go modules (packages/testkit/kube), the
// built CLI's `berth up` and `berth listener`. An external_container deployment created through
// the public API is DEPLOYED only once its API pods are Ready; a resource_spec PATCH rolls a new
// revision; a bad image ends DEPLOY_FAILED while the old revision keeps serving; a listener killed
// mid-rollout finishes it after a restart; a delete removes every object, pods included.
// Not covered (no container runtime here): images are never pulled, no pod process runs, no
// network between pods. kwok moves pods through a kubelet's stages as their image names say.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { KubeCluster, KubeObjectJson } from "@berth-platform/testkit";
import { ControlPlaneUnderTest, eventually } from "./control-plane-helpers.js";
import { clusterForTests, type ListenerProcess, spawnListener } from "./listener-helpers.js";

const DEPLOYMENT_LABEL = "berth.dev/deployment-id";
const REVISION_LABEL = "berth.dev/revision-id";
const COMPONENT_LABEL = "berth.dev/component";
const NS = "agents";

const { cluster: started, skip } = await clusterForTests("the real-cluster listener tests", {
  namespaces: [NS],
  podSecurity: "restricted",
});
const cluster = started as KubeCluster;

const plane = new ControlPlaneUnderTest("e2e-listener-admin-key-0123456789", ["--no-example"], {
  BERTH_PROVISION_INTERVAL_MS: "200",
  BERTH_LISTENER_TIMEOUT_SECS: "3",
});
let listener: ListenerProcess | undefined;

before(async () => {
  if (!skip) await plane.start();
});

after(async () => {
  await listener?.stop("SIGTERM");
  if (!skip) {
    await plane.stop();
    await cluster.stop();
  }
  plane.cleanup();
});

function startListener(id: string, key: string): void {
  listener = spawnListener({
    controlPlaneUrl: plane.url,
    listenerId: id,
    key,
    kubeconfig: cluster.kubeconfig,
    namespace: NS,
  });
}

/** The deployment's objects of one component (found by label: names are the renderer's business). */
async function componentOf(kind: string, deploymentId: string, component: string) {
  const [object] = await cluster.list(
    kind,
    NS,
    `${DEPLOYMENT_LABEL}=${deploymentId},${COMPONENT_LABEL}=${component}`,
  );
  return object;
}

const revisionOf = (o: KubeObjectJson | undefined) =>
  (o?.spec as { template?: { metadata?: { labels?: Record<string, string> } } } | undefined)?.template
    ?.metadata?.labels?.[REVISION_LABEL];

type PodStatus = { conditions?: Array<{ type: string; status: string }> };
const isReady = (pod: KubeObjectJson) =>
  ((pod.status as PodStatus | undefined)?.conditions ?? []).some(
    (c) => c.type === "Ready" && c.status === "True",
  );

/** Where a failing wait shows what the cluster and the listener said. */
const context = () => `${(listener?.output() ?? "").split("\n").slice(-20).join("\n")}\n${cluster.logs(8)}`;

describe("berth listener end to end (berth up + berth listener + a real kube-apiserver)", { skip }, () => {
  let listenerId = "";
  let listenerKey = "";
  let deploymentId = "";
  let serving = "";

  it("an external_container deployment is DEPLOYED once its API pods are Ready", async () => {
    const created = await plane.api("POST", "/v2/listeners", {
      compute_type: "k8s",
      compute_id: "test-cluster",
      compute_config: { k8s_namespaces: [NS] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    listenerId = created.json.id;
    listenerKey = created.json.listener_key;
    startListener(listenerId, listenerKey);
    await eventually(
      async () => (await plane.get(`/v2/listeners/${listenerId}`)).status === "CONNECTED",
      `the listener polls\n${context()}`,
      30_000,
    );

    const deployment = await plane.api("POST", "/v2/deployments", {
      name: "real-agent",
      source: "external_container",
      source_config: {
        resource_spec: {},
        listener_id: listenerId,
        listener_config: { k8s_namespace: NS },
      },
      source_revision_config: { image_uri: "registry.example/real-agent:1" },
      secrets: [{ name: "OPENAI_API_KEY", value: "sk-e2e-listener-secret" }],
    });
    assert.equal(deployment.status, 201, JSON.stringify(deployment.json));
    deploymentId = deployment.json.id;
    const first = deployment.json.latest_revision_id;
    const started = Date.now();
    await plane.waitFor(deploymentId, first, ["DEPLOYED"], 120_000);
    console.log(`# create -> DEPLOYED against the real API server: ${Date.now() - started} ms`);
    serving = first;

    const api = await componentOf("deployment", deploymentId, "api");
    assert.ok(api, "the API Deployment exists");
    assert.equal(revisionOf(api), first);
    assert.match(JSON.stringify(api.spec), /registry\.example\/real-agent:1/);
    const pods = await cluster.list("pods", NS, `${DEPLOYMENT_LABEL}=${deploymentId},${COMPONENT_LABEL}=api`);
    assert.ok(
      pods.length >= 1 && pods.every(isReady),
      `the API pods are Ready: ${JSON.stringify(pods.map((p) => p.status))}`,
    );
    const got = await plane.get(`/v2/deployments/${deploymentId}`);
    assert.equal(got.active_revision_id, first);
    assert.match(
      got.source_config.custom_url,
      new RegExp(`^http://[a-z0-9-]+\\.${NS}\\.svc\\.cluster\\.local:8000$`),
    );
    const log = await plane.logText(deploymentId, first, "deploy");
    assert.match(log, /Applied \d+ objects in namespace agents/);
    assert.ok(!log.includes("sk-e2e-listener-secret"), "the secret is not in the deploy log");
    // The secret reached the cluster (in a Secret), not the Deployment's spec.
    assert.ok(!JSON.stringify(api).includes("sk-e2e-listener-secret"));
  });

  it("a revision whose pods never become Ready is not DEPLOYED", async () => {
    const patched = await plane.api("PATCH", `/v2/deployments/${deploymentId}`, {
      source_revision_config: { image_uri: "registry.example/never-ready:1" },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.json));
    const stuck = patched.json.latest_revision_id;
    // Its pods run but fail their readiness probe: the rollout cannot complete.
    await eventually(
      async () =>
        (await cluster.list("pods", NS, `${REVISION_LABEL}=${stuck},${COMPONENT_LABEL}=api`)).some(
          (p) => (p.status as { phase?: string } | undefined)?.phase === "Running",
        ),
      `the never-ready pod runs\n${context()}`,
      60_000,
    );
    await new Promise((r) => setTimeout(r, 3_000));
    assert.equal((await plane.revision(deploymentId, stuck)).status, "DEPLOYING");
    assert.equal((await plane.get(`/v2/deployments/${deploymentId}`)).active_revision_id, serving);
    // The old pod keeps serving meanwhile (maxUnavailable 0).
    const old = await cluster.list("pods", NS, `${REVISION_LABEL}=${serving},${COMPONENT_LABEL}=api`);
    assert.ok(old.some(isReady), "the serving revision's pod is still Ready");
    // A newer revision waits behind it (QUEUED, as the real service does) until the stuck one is
    // interrupted; then the cluster goes back to the serving revision's pods and on to the new one.
    const fixed = await plane.api("PATCH", `/v2/deployments/${deploymentId}`, {
      source_revision_config: { image_uri: "registry.example/real-agent:1" },
    });
    assert.equal(fixed.status, 200, JSON.stringify(fixed.json));
    const next = fixed.json.latest_revision_id;
    await plane.waitFor(deploymentId, next, ["QUEUED"], 60_000);
    const interrupted = await plane.api(
      "POST",
      `/v2/deployments/${deploymentId}/revisions/${stuck}/interrupt`,
    );
    assert.equal(interrupted.status, 200, JSON.stringify(interrupted.json));
    await plane.waitFor(deploymentId, next, ["DEPLOYED"], 120_000);
    assert.equal((await plane.revision(deploymentId, stuck)).status, "INTERRUPTED");
    await eventually(
      async () => {
        const pods = await cluster.list("pods", NS, `${REVISION_LABEL}=${stuck}`);
        return pods.every((p) => p.metadata.deletionTimestamp);
      },
      `the interrupted revision's pods are gone\n${context()}`,
      60_000,
    );
    serving = next;
  });

  it("a resource_spec PATCH rolls out a new revision with the new objects", async () => {
    const patched = await plane.api("PATCH", `/v2/deployments/${deploymentId}`, {
      source_config: { resource_spec: { min_scale: 1, max_scale: 3, cpu: 2, memory_mb: 4096 } },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.json));
    const second = patched.json.latest_revision_id;
    assert.notEqual(second, serving);
    await plane.waitFor(deploymentId, second, ["DEPLOYED"], 120_000);
    const api = await componentOf("deployment", deploymentId, "api");
    assert.equal(revisionOf(api), second);
    type Spec = { template: { spec: { containers: Array<{ name: string; resources: unknown }> } } };
    const container = (api?.spec as Spec | undefined)?.template.spec.containers.find((c) => c.name === "api");
    assert.deepEqual(container?.resources, {
      requests: { cpu: "2", memory: "4Gi" },
      limits: { cpu: "4", memory: "8Gi" },
    });
    const hpa = await componentOf("hpa", deploymentId, "api");
    assert.equal((hpa?.spec as { maxReplicas: number } | undefined)?.maxReplicas, 3);
    // Every pod of the API is of the new revision and Ready; the old ReplicaSet is scaled down.
    await eventually(
      async () => {
        const pods = await cluster.list(
          "pods",
          NS,
          `${DEPLOYMENT_LABEL}=${deploymentId},${COMPONENT_LABEL}=api`,
        );
        const live = pods.filter((p) => !p.metadata.deletionTimestamp);
        return (
          live.length >= 1 && live.every((p) => p.metadata.labels?.[REVISION_LABEL] === second && isReady(p))
        );
      },
      `only the new revision's pods remain\n${context()}`,
      60_000,
    );
    serving = second;
  });

  it("a bad image ends DEPLOY_FAILED with the pod's reason while the old revision keeps serving", async () => {
    const patched = await plane.api("PATCH", `/v2/deployments/${deploymentId}`, {
      source_revision_config: { image_uri: "registry.example/does-not-exist:2" },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.json));
    const bad = patched.json.latest_revision_id;
    await plane.waitFor(deploymentId, bad, ["DEPLOY_FAILED"], 120_000);
    assert.match(await plane.logText(deploymentId, bad, "deploy"), /ImagePullBackOff/);
    assert.equal((await plane.get(`/v2/deployments/${deploymentId}`)).active_revision_id, serving);
    // The listener applies the serving revision again: the cluster is back on it, fully available.
    await eventually(
      async () => {
        const api = await componentOf("deployment", deploymentId, "api");
        const status = api?.status as {
          replicas?: number;
          availableReplicas?: number;
          updatedReplicas?: number;
        };
        return (
          revisionOf(api) === serving &&
          !JSON.stringify(api?.spec).includes("does-not-exist") &&
          status?.updatedReplicas === status?.replicas &&
          (status?.availableReplicas ?? 0) >= 1
        );
      },
      `the serving revision is back in the cluster\n${context()}`,
      60_000,
    );
  });

  it("a listener killed mid-rollout finishes the rollout after a restart", async () => {
    // A new revision takes the latest revision's image unless told: name the good one again.
    const patched = await plane.api("PATCH", `/v2/deployments/${deploymentId}`, {
      source_config: { resource_spec: { cpu: 1, memory_mb: 2048 } },
      source_revision_config: { image_uri: "registry.example/real-agent:1" },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.json));
    const next = patched.json.latest_revision_id;
    await plane.waitFor(deploymentId, next, ["DEPLOYING", "DEPLOYED"], 60_000);
    await listener?.stop("SIGKILL");
    startListener(listenerId, listenerKey);
    await plane.waitFor(deploymentId, next, ["DEPLOYED"], 120_000);
    assert.equal(revisionOf(await componentOf("deployment", deploymentId, "api")), next);
    serving = next;
  });

  it("deleting the deployment removes every object, pods included", async () => {
    const res = await plane.api("DELETE", `/v2/deployments/${deploymentId}`);
    assert.equal(res.status, 204, JSON.stringify(res.json));
    const kinds = ["deployments", "statefulsets", "services", "secrets", "hpa", "replicasets", "pods"];
    await eventually(
      async () => {
        for (const kind of kinds) {
          if ((await cluster.list(kind, NS, `${DEPLOYMENT_LABEL}=${deploymentId}`)).length > 0) return false;
        }
        return true;
      },
      `every object is deleted\n${context()}`,
      90_000,
    );
    await listener?.stop("SIGTERM");
    await eventually(
      async () => (await plane.get(`/v2/listeners/${listenerId}`)).status === "DISCONNECTED",
      "the listener shows DISCONNECTED",
      30_000,
    );
  });
});
