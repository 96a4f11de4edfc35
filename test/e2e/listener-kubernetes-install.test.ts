// `berth listener install` on a real API server (issue 26): its manifests apply under the
// restricted Pod Security Standard, `kubectl auth can-i` as the listener's ServiceAccount shows it
// can do its job in its namespaces and nothing more, and two listeners of one id, running with
// that ServiceAccount's token, elect one leader through a Lease: only the leader applies, and the
// standby takes over when the leader is killed. kube-apiserver, controller-manager, scheduler,
// etcd and kwok come from packages/testkit/kube.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { type KubeCluster, makeTempDir, repoRoot } from "@berth-platform/testkit";
import { ControlPlaneUnderTest, eventually } from "./control-plane-helpers.js";
import { clusterForTests, type ListenerProcess, spawnListener } from "./listener-helpers.js";

const AGENTS = "agents";
const OTHER = "other-team";
const HOME = "berth-system";
const BERTH = path.join(repoRoot, "packages/cli/bin/berth.js");

const { cluster: started, skip } = await clusterForTests("the listener install tests", {
  namespaces: [AGENTS, OTHER, HOME],
  podSecurity: "restricted",
});
const cluster = started as KubeCluster;

const plane = new ControlPlaneUnderTest("e2e-listener-install-admin-key-0123456789", ["--no-example"], {
  BERTH_PROVISION_INTERVAL_MS: "200",
  BERTH_LISTENER_TIMEOUT_SECS: "3",
});
const temp = makeTempDir("berth-e2e-listener-install-");

const replicas: ListenerProcess[] = [];

before(async () => {
  if (!skip) await plane.start();
});

after(async () => {
  for (const r of replicas) await r.stop("SIGTERM");
  if (!skip) {
    await plane.stop();
    await cluster.stop();
  }
  plane.cleanup();
  temp.cleanup();
});

function startReplica(listenerId: string, key: string, kubeconfig: string): ListenerProcess {
  const replica = spawnListener({
    controlPlaneUrl: plane.url,
    listenerId,
    key,
    kubeconfig,
    namespace: AGENTS,
    extraArgs: ["--lease-namespace", HOME, "--lease-duration", "4"],
  });
  replicas.push(replica);
  return replica;
}

const leaseName = (listenerId: string) => `berth-listener-${listenerId}`;
async function holder(listenerId: string): Promise<string | undefined> {
  const lease = await cluster.get("lease", HOME, leaseName(listenerId));
  return (lease?.spec as { holderIdentity?: string } | undefined)?.holderIdentity;
}

describe("berth listener install, least privilege and leader election on a real API server", { skip }, () => {
  let listenerId = "";
  let listenerKey = "";
  let saKubeconfig = "";

  it("the install manifests apply, and the listener's pods are admitted as restricted", async () => {
    const created = await plane.api("POST", "/v2/listeners", {
      compute_type: "k8s",
      compute_id: "installed",
      compute_config: { k8s_namespaces: [AGENTS] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    listenerId = created.json.id;
    listenerKey = created.json.listener_key;
    const printed = spawnSync(
      process.execPath,
      [
        BERTH,
        "listener",
        "install",
        "--listener-id",
        listenerId,
        "--control-plane",
        plane.url,
        "--namespace",
        AGENTS,
        "--listener-namespace",
        HOME,
        "--image",
        "registry.example/berth:1",
      ],
      { encoding: "utf8" },
    );
    assert.equal(printed.status, 0, printed.stderr);
    assert.ok(!printed.stdout.includes(listenerKey), "the key is never printed");
    await cluster.apply(printed.stdout);
    await eventually(
      async () => {
        const pods = await cluster.list("pods", HOME, "app.kubernetes.io/name=berth-listener");
        return pods.length === 2 && pods.every((p) => (p.status as { phase?: string }).phase === "Running");
      },
      `the listener's two pods run\n${cluster.logs(5)}`,
      60_000,
    );
    const token = await cluster.kubectl(["create", "token", "berth-listener", "-n", HOME, "--duration=1h"]);
    assert.equal(token.code, 0, token.stderr);
    saKubeconfig = cluster.writeKubeconfig(token.stdout.trim(), path.join(temp.dir, "listener.kubeconfig"));
  });

  it("kubectl auth can-i: what it needs in its namespaces, nothing elsewhere", async () => {
    const can = async (...args: string[]) =>
      (await cluster.kubectl(["auth", "can-i", ...args], { kubeconfig: saKubeconfig })).stdout.trim();
    const allowed: string[][] = [
      ["create", "deployments.apps", "-n", AGENTS],
      ["patch", "statefulsets.apps", "-n", AGENTS],
      ["delete", "secrets", "-n", AGENTS],
      ["create", "networkpolicies.networking.k8s.io", "-n", AGENTS],
      ["create", "poddisruptionbudgets.policy", "-n", AGENTS],
      ["create", "horizontalpodautoscalers.autoscaling", "-n", AGENTS],
      ["list", "pods", "-n", AGENTS],
      ["get", "pods", "--subresource=log", "-n", AGENTS],
      ["patch", "persistentvolumeclaims", "-n", AGENTS],
      ["create", "leases.coordination.k8s.io", "-n", HOME],
      ["update", `leases.coordination.k8s.io/${leaseName(listenerId)}`, "-n", HOME],
    ];
    const refused: string[][] = [
      ["create", "deployments.apps", "-n", OTHER],
      ["get", "secrets", "-n", OTHER],
      ["get", "secrets", "-n", HOME],
      ["list", "nodes"],
      ["create", "namespaces"],
      ["delete", "pods", "-n", AGENTS],
      ["create", "pods", "-n", AGENTS],
      ["create", "pods", "--subresource=exec", "-n", AGENTS],
      ["create", "roles.rbac.authorization.k8s.io", "-n", AGENTS],
      ["create", "configmaps", "-n", AGENTS],
      ["update", "leases.coordination.k8s.io/someone-else", "-n", HOME],
      ["create", "leases.coordination.k8s.io", "-n", AGENTS],
      ["delete", "persistentvolumeclaims", "-n", AGENTS],
    ];
    for (const args of allowed) assert.equal(await can(...args), "yes", `can ${args.join(" ")}`);
    for (const args of refused) assert.equal(await can(...args), "no", `cannot ${args.join(" ")}`);
  });

  it("two replicas with the ServiceAccount's token: one leader applies; the standby takes over when it dies", async () => {
    const a = startReplica(listenerId, listenerKey, saKubeconfig);
    const b = startReplica(listenerId, listenerKey, saKubeconfig);
    await eventually(
      async () => Boolean(a.identity() && b.identity() && (await holder(listenerId))),
      "a leader",
      30_000,
    );
    const leaderId = await holder(listenerId);
    const [leader, standby] = leaderId === a.identity() ? [a, b] : [b, a];
    assert.equal(leader.identity(), leaderId, `the lease names one of the two: ${leaderId}`);

    const deployment = await plane.api("POST", "/v2/deployments", {
      name: "elected",
      source: "external_container",
      source_config: {
        resource_spec: {},
        listener_id: listenerId,
        listener_config: { k8s_namespace: AGENTS },
      },
      source_revision_config: { image_uri: "registry.example/elected:1" },
      secrets: [],
    });
    assert.equal(deployment.status, 201, JSON.stringify(deployment.json));
    const id = deployment.json.id;
    await plane.waitFor(id, deployment.json.latest_revision_id, ["DEPLOYED"], 120_000);
    assert.match(leader.output(), /applied revision/);
    assert.doesNotMatch(standby.output(), /applied revision/, "the standby never applied");

    const killedAt = Date.now();
    await leader.stop("SIGKILL");
    await eventually(
      async () => (await holder(listenerId)) === standby.identity(),
      "the standby leads",
      30_000,
    );
    console.log(`# standby took over ${Date.now() - killedAt} ms after the leader was killed (lease 4 s)`);
    const patched = await plane.api("PATCH", `/v2/deployments/${id}`, {
      source_config: { resource_spec: { cpu: 1 } },
      source_revision_config: { image_uri: "registry.example/elected:2" },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.json));
    await plane.waitFor(id, patched.json.latest_revision_id, ["DEPLOYED"], 120_000);
    assert.match(standby.output(), /applied revision/);

    // A clean stop gives the lease up at once (no holder) for the next replica.
    await standby.stop("SIGTERM");
    assert.equal(await holder(listenerId), undefined);
  });
});
