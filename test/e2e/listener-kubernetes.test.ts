// End to end, the Kubernetes data plane against the API simulator: the built CLI's `berth up` and
// `berth listener`; an external_container deployment created through the public API is DEPLOYED
// in the (simulated) cluster, a resource_spec PATCH rolls a new revision with new objects, a bad
// image ends DEPLOY_FAILED while the old revision keeps serving, and a delete removes every object.
// What this cannot show (real scheduling, images, probes, networking) needs a real cluster.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { type KubeSimulator, makeTempDir, repoRoot, startKubeSimulator } from "@berth-platform/testkit";
import { ControlPlaneUnderTest, eventually } from "./control-plane-helpers.js";

const DEPLOYMENT_LABEL = "berth.dev/deployment-id";
const REVISION_LABEL = "berth.dev/revision-id";

let sim: KubeSimulator;
let listener: ChildProcess | undefined;
let listenerOutput = "";
const plane = new ControlPlaneUnderTest("e2e-listener-admin-key-0123456789", ["--no-example"], {
  BERTH_PROVISION_INTERVAL_MS: "200",
  BERTH_LISTENER_TIMEOUT_SECS: "2",
});
const temp = makeTempDir("berth-e2e-listener-");

before(async () => {
  sim = await startKubeSimulator({ namespaces: ["agents"], readyDelayMs: 200, tickMs: 50 });
  await plane.start();
});

after(async () => {
  if (listener && listener.exitCode === null) {
    const exited = new Promise((resolve) => listener?.once("exit", resolve));
    listener.kill("SIGTERM");
    await exited;
  }
  await plane.stop();
  plane.cleanup();
  await sim.close();
  temp.cleanup();
});

function startListener(id: string, key: string): void {
  listener = spawn(
    process.execPath,
    [
      path.join(repoRoot, "packages/cli/bin/berth.js"),
      "listener",
      "--control-plane",
      plane.url,
      "--listener-id",
      id,
      "--kubeconfig",
      sim.writeKubeconfig(temp.dir),
      "--namespace",
      "agents",
      "--poll-interval",
      "0.3",
      "--log-format",
      "json",
    ],
    { env: { ...process.env, BERTH_LISTENER_KEY: key }, stdio: ["ignore", "pipe", "pipe"] },
  );
  listener.stdout?.on("data", (c: Buffer) => (listenerOutput += c.toString()));
  listener.stderr?.on("data", (c: Buffer) => (listenerOutput += c.toString()));
}

/** The API Deployment in the simulated cluster. */
const apiDeployment = (name: string) => sim.get("Deployment", "agents", `${name}-api`);

describe("berth listener end to end (berth up + berth listener + Kubernetes API simulator)", () => {
  let listenerId = "";
  let deploymentId = "";
  let serving = "";

  it("an external_container deployment of a listener is DEPLOYED in the cluster", async () => {
    const created = await plane.api("POST", "/v2/listeners", {
      compute_type: "k8s",
      compute_id: "sim-cluster",
      compute_config: { k8s_namespaces: ["agents"] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    listenerId = created.json.id;
    startListener(listenerId, created.json.listener_key);
    await eventually(
      async () => (await plane.get(`/v2/listeners/${listenerId}`)).status === "CONNECTED",
      "the listener polls",
    );

    const deployment = await plane.api("POST", "/v2/deployments", {
      name: "sim-agent",
      source: "external_container",
      source_config: {
        resource_spec: {},
        listener_id: listenerId,
        listener_config: { k8s_namespace: "agents" },
      },
      source_revision_config: { image_uri: "registry.example/sim-agent:1" },
      secrets: [{ name: "OPENAI_API_KEY", value: "sk-e2e-listener-secret" }],
    });
    assert.equal(deployment.status, 201, JSON.stringify(deployment.json));
    deploymentId = deployment.json.id;
    const first = deployment.json.latest_revision_id;
    await plane.waitFor(deploymentId, first, ["DEPLOYED"], 60_000);
    serving = first;
    const api = apiDeployment("sim-agent");
    assert.equal(api?.metadata.labels?.[REVISION_LABEL], first);
    assert.match(JSON.stringify(api?.spec), /registry\.example\/sim-agent:1/);
    assert.equal(api?.status?.availableReplicas, 1);
    const got = await plane.get(`/v2/deployments/${deploymentId}`);
    assert.equal(got.active_revision_id, first);
    assert.equal(got.source_config.custom_url, "http://sim-agent-api.agents.svc.cluster.local:8000");
    const log = await plane.logText(deploymentId, first, "deploy");
    assert.match(log, /Applied \d+ objects in namespace agents/);
    assert.ok(!log.includes("sk-e2e-listener-secret"));
  });

  it("a resource_spec PATCH rolls out a new revision with the new objects", async () => {
    const patched = await plane.api("PATCH", `/v2/deployments/${deploymentId}`, {
      source_config: { resource_spec: { min_scale: 1, max_scale: 3, cpu: 2, memory_mb: 4096 } },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.json));
    const second = patched.json.latest_revision_id;
    assert.notEqual(second, serving);
    await plane.waitFor(deploymentId, second, ["DEPLOYED"], 60_000);
    const api = apiDeployment("sim-agent");
    assert.equal(api?.metadata.labels?.[REVISION_LABEL], second);
    assert.equal(api?.metadata.generation, 2);
    type Spec = { template: { spec: { containers: Array<{ resources: unknown }> } } };
    const container = (api?.spec as Spec | undefined)?.template.spec.containers[0];
    assert.deepEqual(container?.resources, {
      requests: { cpu: "2000m", memory: "4096Mi" },
      limits: { cpu: "4000m", memory: "8192Mi" },
    });
    const hpa = sim.get("HorizontalPodAutoscaler", "agents", "sim-agent-api");
    assert.equal((hpa?.spec as { maxReplicas: number } | undefined)?.maxReplicas, 3);
    serving = second;
  });

  it("a bad image ends DEPLOY_FAILED with the pod's reason while the old revision keeps serving", async () => {
    const patched = await plane.api("PATCH", `/v2/deployments/${deploymentId}`, {
      source_revision_config: { image_uri: "registry.example/does-not-exist:2" },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.json));
    const bad = patched.json.latest_revision_id;
    await plane.waitFor(deploymentId, bad, ["DEPLOY_FAILED"], 60_000);
    assert.match(await plane.logText(deploymentId, bad, "deploy"), /ImagePullBackOff/);
    assert.equal((await plane.get(`/v2/deployments/${deploymentId}`)).active_revision_id, serving);
    // The listener applies the serving revision again: the cluster is back on it, fully available.
    await eventually(() => {
      const api = apiDeployment("sim-agent");
      const status = api?.status as { replicas?: number; availableReplicas?: number } | undefined;
      return (
        api?.metadata.labels?.[REVISION_LABEL] === serving &&
        !JSON.stringify(api.spec).includes("does-not-exist") &&
        status?.replicas === 1 &&
        status.availableReplicas === 1
      );
    }, "the serving revision is back in the cluster");
  });

  it("deleting the deployment removes every object; a listener that stops polling shows DISCONNECTED", async () => {
    const res = await plane.api("DELETE", `/v2/deployments/${deploymentId}`);
    assert.equal(res.status, 204, JSON.stringify(res.json));
    const kinds = [
      "Deployment",
      "StatefulSet",
      "Service",
      "Secret",
      "HorizontalPodAutoscaler",
      "ReplicaSet",
      "Pod",
    ];
    await eventually(
      () =>
        kinds.every(
          (kind) => sim.objects(kind, "agents", `${DEPLOYMENT_LABEL}=${deploymentId}`).length === 0,
        ),
      `every object is deleted\n${listenerOutput}`,
      30_000,
    );
    const exited = new Promise((resolve) => listener?.once("exit", resolve));
    listener?.kill("SIGTERM");
    await exited;
    await eventually(
      async () => (await plane.get(`/v2/listeners/${listenerId}`)).status === "DISCONNECTED",
      "the listener shows DISCONNECTED",
    );
  });
});
