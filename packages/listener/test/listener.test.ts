// The listener's reconcile passes through @kubernetes/client-node 1.4.0 against a real Kubernetes
// control plane (kube-apiserver, controller-manager, scheduler, etcd and kwok built from their Go
// modules: testkit's startKubeCluster), with an in-memory control plane: server-side apply with field
// manager `berth`, labels, prune, rollout tracking (DEPLOYED only when the new ReplicaSet is
// available), image pull errors / crash loops (with the container's log, served by kwok as a kubelet
// would) / the progress deadline → DEPLOY_FAILED and a rollback, drift, deletion.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { isSkip, type KubeCluster, type KubeObjectJson, startKubeCluster } from "@berth-platform/testkit";
import {
  ClientNodeCluster,
  type ClusterPort,
  type ControlPlanePort,
  type DeployLogLine,
  type DesiredDeployment,
  type DesiredState,
  LABELS,
  objectName,
  Reconciler,
} from "../src/index.js";
import { DEFAULT_SPEC } from "./fixtures.js";

const LISTENER = "7d3f6c1e-0000-4000-8000-00000000000a";

/** The control plane's side, in memory: the desired state follows the reports as the real one does. */
class FakeControlPlane implements ControlPlanePort {
  readonly deployments = new Map<string, DesiredDeployment & { active: DesiredDeployment["revision"] }>();
  readonly reports: Array<{ revisionId: string; status: string; reason?: string; url?: string }> = [];
  readonly logs: Array<{ revisionId: string } & DeployLogLine> = [];

  async desiredState(): Promise<DesiredState> {
    return {
      listener_id: LISTENER,
      poll_interval_seconds: 1,
      deployments: [...this.deployments.values()].map(({ active: _a, ...d }) => structuredClone(d)),
    };
  }

  async report(
    deploymentId: string,
    revisionId: string,
    report: { status: "DEPLOYING" | "DEPLOYED" | "DEPLOY_FAILED"; reason?: string; url?: string },
  ): Promise<boolean> {
    const d = this.deployments.get(deploymentId);
    if (!d?.revision || d.revision.revision_id !== revisionId) return false;
    this.reports.push({ revisionId, ...report });
    if (report.status === "DEPLOYING") d.revision.status = "DEPLOYING";
    if (report.status === "DEPLOYED") {
      d.revision.status = "DEPLOYED";
      d.active = d.revision;
    }
    // As the control plane does: the serving revision is desired again.
    if (report.status === "DEPLOY_FAILED") d.revision = d.active;
    return true;
  }

  async appendLogs(_d: string, revisionId: string, lines: DeployLogLine[]): Promise<void> {
    for (const line of lines) this.logs.push({ revisionId, ...line });
  }

  /** Assigns a new revision (AWAITING_DEPLOY) of a deployment. */
  deploy(
    id: string,
    revisionId: string,
    image: string,
    spec: Partial<typeof DEFAULT_SPEC> = {},
    extra: Partial<DesiredDeployment> = {},
  ) {
    const namespace = extra.namespace ?? "agents";
    const current = this.deployments.get(id);
    this.deployments.set(id, {
      deployment_id: id,
      name: `agent-${id.slice(0, 4)}`,
      namespace,
      custom_url: null,
      ...extra,
      active: current?.active ?? null,
      revision: {
        deployment_id: id,
        revision_id: revisionId,
        status: "AWAITING_DEPLOY",
        name: extra.name ?? `agent-${id.slice(0, 4)}`,
        namespace,
        image_uri: image,
        secrets: [{ name: "OPENAI_API_KEY", value: "sk-simulated" }],
        secret_references: [],
        resource_spec: { ...DEFAULT_SPEC, ...spec },
        database_password: "pw",
      },
    });
  }
}

/** The name of an object of a deployment this test made (named `agent-<first 4 of the id>`). */
const nameOf = (id: string, component: Parameters<typeof objectName>[1]) =>
  objectName({ deployment_id: id, name: `agent-${id.slice(0, 4)}` }, component);

/** What the crash-looping container printed (kwok serves it for `kubectl logs --previous`). */
const CRASH_LOG = "Error: could not load graphs: ./src/agent.ts: Cannot find module 'langchain'";
const started = await startKubeCluster({
  namespaces: ["agents"],
  podSecurity: "restricted",
  containerLog: `starting\n${CRASH_LOG}\n`,
});
const skip = isSkip(started) ? started.skip : false;
if (skip) console.log(`# skipping the listener's reconcile tests: ${skip}`);
const kube = started as KubeCluster;
let cp: FakeControlPlane;
let reconciler: Reconciler;
let cluster: ClusterPort;
const silent = { info() {}, warn() {}, error() {} };

before(() => {
  if (skip) return;
  cp = new FakeControlPlane();
  cluster = new ClientNodeCluster({ kind: "file", path: kube.kubeconfig });
  reconciler = new Reconciler(cluster, cp, { listenerId: LISTENER, namespaces: ["agents"] }, silent);
});
after(async () => {
  if (!skip) await kube.stop();
});

/** Runs passes until the revision settles (DEPLOYED or DEPLOY_FAILED reported). */
async function settle(revisionId: string, ms = 120_000): Promise<string> {
  const end = Date.now() + ms;
  for (;;) {
    await reconciler.pass(await cp.desiredState());
    const last = cp.reports.filter((r) => r.revisionId === revisionId).at(-1);
    if (last && last.status !== "DEPLOYING") return last.status;
    if (Date.now() > end)
      throw new Error(
        `revision ${revisionId} did not settle: ${JSON.stringify(cp.reports)}\n${kube.logs(8)}`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
}

const names = async (kind: string, selector: string) =>
  (await kube.list(kind, "agents", selector)).map((o) => o.metadata.name).sort();
const getObject = (kind: string, name: string) => kube.get(kind, "agents", name);
const D1 = "11111111-0000-4000-8000-000000000001";
const D2 = "22222222-0000-4000-8000-000000000002";

describe("berth listener against a real kube-apiserver", { skip }, () => {
  it("applies a revision with server-side apply (field manager berth), labels it, reports DEPLOYED with the Service URL", async () => {
    cp.deploy(D1, "aaaaaaaa-0000-4000-8000-000000000001", "registry.example/agent:1", { max_scale: 3 });
    assert.equal(await settle("aaaaaaaa-0000-4000-8000-000000000001"), "DEPLOYED");
    // Every object of the deployment was written by server-side apply as field manager `berth`.
    const got = await kube.kubectl([
      ..."get deployments,statefulsets,services,secrets,horizontalpodautoscalers -n agents".split(" "),
      ...["-l", `${LABELS.deployment}=${D1}`, "-o", "json", "--show-managed-fields"],
    ]);
    assert.equal(got.code, 0, got.stderr);
    const objects = (JSON.parse(got.stdout) as { items: KubeObjectJson[] }).items;
    assert.ok(objects.length >= 9, String(objects.length));
    for (const o of objects) {
      const managers = (o.metadata as { managedFields?: Array<{ manager: string; operation: string }> })
        .managedFields;
      assert.ok(
        managers?.some((m) => m.manager === "berth" && m.operation === "Apply"),
        `${o.kind}/${o.metadata.name}: ${JSON.stringify(managers)}`,
      );
    }
    const selector = `${LABELS.deployment}=${D1},${LABELS.listener}=${LISTENER}`;
    assert.deepEqual(await names("Deployment", selector), [nameOf(D1, "api"), nameOf(D1, "queue")]);
    assert.deepEqual(await names("HorizontalPodAutoscaler", selector), [nameOf(D1, "api")]);
    assert.deepEqual(await names("StatefulSet", selector), [nameOf(D1, "postgres"), nameOf(D1, "redis")]);
    const api = await getObject("Deployment", nameOf(D1, "api"));
    assert.equal(api?.metadata.labels?.[LABELS.revision], "aaaaaaaa-0000-4000-8000-000000000001");
    assert.equal(api?.status?.availableReplicas, 1);
    const secret = await getObject("Secret", nameOf(D1, "secrets"));
    assert.equal(
      Buffer.from(
        String((secret?.data as Record<string, string> | undefined)?.OPENAI_API_KEY),
        "base64",
      ).toString(),
      "sk-simulated",
    );
    const deployed = cp.reports.find((r) => r.status === "DEPLOYED");
    assert.equal(deployed?.url, `http://${nameOf(D1, "api")}.agents.svc.cluster.local:8000`);
    assert.deepEqual(
      cp.reports.map((r) => r.status),
      ["DEPLOYING", "DEPLOYED"],
    );
    assert.ok(
      cp.logs.some((l) => l.message.startsWith("Applied 12 objects in namespace agents")),
      JSON.stringify(cp.logs),
    );
  });

  it("rolls a new revision out on the same Deployment and prunes what it no longer renders", async () => {
    cp.deploy(D1, "aaaaaaaa-0000-4000-8000-000000000002", "registry.example/agent:2", { max_scale: 1 });
    assert.equal(await settle("aaaaaaaa-0000-4000-8000-000000000002"), "DEPLOYED");
    const api = await getObject("Deployment", nameOf(D1, "api"));
    assert.equal(api?.metadata.generation, 2);
    assert.match(JSON.stringify(api?.spec), /registry\.example\/agent:2/);
    assert.deepEqual(
      await names("HorizontalPodAutoscaler", `${LABELS.deployment}=${D1}`),
      [],
      "the HPA is pruned",
    );
    assert.ok(
      cp.logs.some(
        (l) =>
          l.message ===
          `Pruned HorizontalPodAutoscaler/${nameOf(D1, "api")}: the revision no longer renders it`,
      ),
    );
  });

  it("ends DEPLOY_FAILED on an image that cannot be pulled (reason in the log) and rolls back to the serving revision", async () => {
    const bad = "aaaaaaaa-0000-4000-8000-000000000003";
    cp.deploy(D1, bad, "registry.example/does-not-exist:3");
    assert.equal(await settle(bad), "DEPLOY_FAILED");
    assert.match(
      cp.reports.at(-1)?.reason ?? "",
      /ImagePullBackOff: Back-off pulling image "registry\.example\/does-not-exist:3"/,
    );
    // The next passes apply the serving revision again: the Deployment goes back to image 2.
    const end = Date.now() + 120_000;
    for (;;) {
      await reconciler.pass(await cp.desiredState());
      const api = await getObject("Deployment", nameOf(D1, "api"));
      const s = api?.status as
        | { availableReplicas?: number; updatedReplicas?: number; replicas?: number }
        | undefined;
      if (JSON.stringify(api?.spec).includes("agent:2") && s?.replicas === 1 && s.availableReplicas === 1)
        break;
      if (Date.now() > end) throw new Error(`no rollback: ${JSON.stringify(api)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.equal(
      (await getObject("Deployment", nameOf(D1, "api")))?.metadata.labels?.[LABELS.revision],
      "aaaaaaaa-0000-4000-8000-000000000002",
    );
  });

  it("ends DEPLOY_FAILED on a crash loop with the container's last log lines, and on the progress deadline", async () => {
    const crash = "aaaaaaaa-0000-4000-8000-000000000004";
    cp.deploy(D1, crash, "registry.example/crashloop:4");
    assert.equal(await settle(crash), "DEPLOY_FAILED");
    assert.match(cp.reports.at(-1)?.reason ?? "", /CrashLoopBackOff/);
    const lines = cp.logs.filter((l) => l.revisionId === crash).map((l) => l.message);
    assert.ok(lines.includes(CRASH_LOG), lines.join("\n"));
    const slow = "aaaaaaaa-0000-4000-8000-000000000005";
    cp.deploy(D1, slow, "registry.example/never-ready:5");
    // The rendered deadline is 600 s: once applied, the operator's edit shortens it, and the real
    // deployment controller marks the rollout ProgressDeadlineExceeded.
    await reconciler.pass(await cp.desiredState());
    const patched = await kube.kubectl([
      ..."patch deployment -n agents --type=merge -p".split(" "),
      '{"spec":{"progressDeadlineSeconds":2}}',
      nameOf(D1, "api"),
    ]);
    assert.equal(patched.code, 0, patched.stderr);
    assert.equal(await settle(slow), "DEPLOY_FAILED");
    assert.match(cp.reports.at(-1)?.reason ?? "", /ProgressDeadlineExceeded/);
  });

  it("reports the user's custom_url, refuses a namespace it does not serve, deletes a removed deployment's objects only", async () => {
    const d2 = D2;
    cp.deploy(
      d2,
      "bbbbbbbb-0000-4000-8000-000000000001",
      "registry.example/agent:1",
      {},
      { custom_url: "https://agents.example.com/two" },
    );
    assert.equal(await settle("bbbbbbbb-0000-4000-8000-000000000001"), "DEPLOYED");
    assert.equal(cp.reports.at(-1)?.url, "https://agents.example.com/two");
    const d3 = "33333333-0000-4000-8000-000000000003";
    cp.deploy(
      d3,
      "cccccccc-0000-4000-8000-000000000001",
      "registry.example/agent:1",
      {},
      { namespace: "other" },
    );
    assert.equal(await settle("cccccccc-0000-4000-8000-000000000001"), "DEPLOY_FAILED");
    assert.match(cp.reports.at(-1)?.reason ?? "", /namespace 'other' is not one this listener serves/);
    cp.deployments.delete(d3);
    cp.deployments.delete(D1);
    await reconciler.pass(await cp.desiredState());
    // The Deployments go at once; their ReplicaSets and pods follow by the garbage collector.
    const kinds = [
      "Deployment",
      "StatefulSet",
      "Service",
      "Secret",
      "HorizontalPodAutoscaler",
      "ReplicaSet",
      "Pod",
    ];
    const end = Date.now() + 120_000;
    for (;;) {
      const left = (
        await Promise.all(
          kinds.map(async (kind) =>
            (await names(kind, `${LABELS.deployment}=${D1}`)).map((n) => `${kind}/${n}`),
          ),
        )
      ).flat();
      if (left.length === 0) break;
      if (Date.now() > end) assert.fail(`objects of the deleted deployment remain: ${left.join(", ")}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    assert.ok(
      (await names("Deployment", `${LABELS.deployment}=${d2}`)).length > 0,
      "the other deployment stays",
    );
  });

  it("undoes drift: a render is applied again once reapplyMs has passed, not on every poll", async () => {
    const d2 = D2;
    const service = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: nameOf(D2, "api"), namespace: "agents" },
    };
    assert.ok(await getObject("Service", nameOf(D2, "api")));
    await cluster.delete(service);
    await reconciler.pass(await cp.desiredState());
    assert.equal(await getObject("Service", nameOf(D2, "api")), undefined, "within reapplyMs: left alone");
    const eager = new Reconciler(
      cluster,
      cp,
      { listenerId: LISTENER, namespaces: ["agents"], reapplyMs: 0 },
      silent,
    );
    await eager.pass(await cp.desiredState());
    assert.equal((await getObject("Service", nameOf(D2, "api")))?.metadata.labels?.[LABELS.deployment], d2);
  });

  it("gives two deployments with one name their own objects; deleting one leaves the other's alone", async () => {
    const [d5, d6] = ["55555555-0000-4000-8000-000000000005", "66666666-0000-4000-8000-000000000006"];
    cp.deploy(
      d5,
      "eeeeeeee-0000-4000-8000-000000000005",
      "registry.example/agent:1",
      {},
      { name: "same-name" },
    );
    cp.deploy(
      d6,
      "eeeeeeee-0000-4000-8000-000000000006",
      "registry.example/agent:1",
      {},
      { name: "same-name" },
    );
    assert.equal(await settle("eeeeeeee-0000-4000-8000-000000000005"), "DEPLOYED");
    assert.equal(await settle("eeeeeeee-0000-4000-8000-000000000006"), "DEPLOYED");
    const urls = cp.reports
      .filter((r) => r.status === "DEPLOYED")
      .slice(-2)
      .map((r) => r.url);
    assert.notEqual(urls[0], urls[1]);
    cp.deployments.delete(d5);
    await reconciler.pass(await cp.desiredState());
    assert.deepEqual(await names("Deployment", `${LABELS.deployment}=${d5}`), []);
    assert.equal(
      (await names("Deployment", `${LABELS.deployment}=${d6}`)).length,
      2,
      "the other deployment's stay",
    );
    const secret = objectName({ deployment_id: d6, name: "same-name" }, "secrets");
    assert.equal((await getObject("Secret", secret))?.metadata.labels?.[LABELS.deployment], d6);
  });

  it("never takes over an object another deployment owns: DEPLOY_FAILED with the reason, the object untouched", async () => {
    const d7 = "77777777-0000-4000-8000-000000000007";
    const foreign = "99999999-0000-4000-8000-000000000099";
    const taken = nameOf(d7, "api");
    await cluster.apply({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: taken, namespace: "agents", labels: { [LABELS.deployment]: foreign } },
      spec: { selector: { app: "theirs" }, ports: [{ port: 80 }] },
    });
    cp.deploy(d7, "ffffffff-0000-4000-8000-000000000007", "registry.example/agent:1");
    assert.equal(await settle("ffffffff-0000-4000-8000-000000000007"), "DEPLOY_FAILED");
    assert.match(
      cp.reports.at(-1)?.reason ?? "",
      new RegExp(
        `^Service/${taken} already exists in namespace agents and belongs to another Berth deployment`,
      ),
    );
    assert.ok(!(cp.reports.at(-1)?.reason ?? "").includes(foreign), "the other deployment's id is not shown");
    const service = await getObject("Service", taken);
    assert.equal(service?.metadata.labels?.[LABELS.deployment], foreign);
    assert.deepEqual((service?.spec as { selector?: unknown } | undefined)?.selector, { app: "theirs" });
  });
});
