// The Kubernetes API simulator the listener is tested against: server-side apply validated against
// the official OpenAPI schemas, label-selector lists, DELETE with propagation, a controller that
// rolls Deployments out (or leaves them at ImagePullBackOff), and objects kubectl can read.
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import https from "node:https";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { type KubeSimulator, makeTempDir, startKubeSimulator } from "../src/index.js";

// biome-ignore lint/suspicious/noExplicitAny: API answers are walked freely in assertions.
type Json = Record<string, any>;

let sim: KubeSimulator;
const hasKubectl = spawnSync("kubectl", ["version", "--client"], { stdio: "ignore" }).status === 0;
const temp = makeTempDir("berth-kube-sim-");

before(async () => {
  sim = await startKubeSimulator({ namespaces: ["agents"], readyDelayMs: 50, tickMs: 20 });
});
after(async () => {
  await sim.close();
  temp.cleanup();
});

function deployment(name: string, image: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: "agents", labels: { app: name, tier: "api" } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "api", image }] } },
      ...extra,
    },
  };
}

/** A request over TLS trusting the simulator's certificate; `token: null` sends no credential. */
function request(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
  token: string | null = sim.token,
) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = https.request(`${sim.url}${path}`, {
      method,
      ca: sim.caCert,
      headers: {
        ...headers,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) }),
      },
    });
    req.on("response", (res) => {
      let text = "";
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function call(
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/apply-patch+yaml",
) {
  const res = await request(
    method,
    path,
    body === undefined ? {} : { "content-type": contentType },
    body === undefined ? undefined : JSON.stringify(body),
  );
  return {
    status: res.status,
    json: (res.text.startsWith("{") ? JSON.parse(res.text) : { text: res.text }) as Json,
  };
}

const applyPath = (name: string) =>
  `/apis/apps/v1/namespaces/agents/deployments/${name}?fieldManager=berth&force=true`;

async function until<T>(read: () => T | Promise<T>, ok: (v: T) => boolean, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("Kubernetes API simulator", () => {
  it("serves discovery and refuses requests without the kubeconfig's token", async () => {
    assert.equal(
      (await call("GET", "/apis/apps/v1")).json.resources.some(
        (r: { name: string }) => r.name === "deployments",
      ),
      true,
    );
    assert.equal((await request("GET", "/api/v1/namespaces", {}, undefined, null)).status, 401);
    assert.equal((await request("GET", "/api/v1/namespaces", {}, undefined, "wrong")).status, 401);
  });

  it("applies with server-side apply only, validating against the OpenAPI schema (422 when invalid)", async () => {
    assert.equal(
      (
        await call(
          "PATCH",
          applyPath("web"),
          deployment("web", "registry.example/web:1"),
          "application/merge-patch+json",
        )
      ).status,
      415,
    );
    assert.equal(
      (await call("PATCH", "/apis/apps/v1/namespaces/agents/deployments/web", deployment("web", "x"))).status,
      400,
      "fieldManager is required",
    );
    const invalid = await call(
      "PATCH",
      applyPath("web"),
      deployment("web", "registry.example/web:1", { replicas: "three" }),
    );
    assert.equal(invalid.status, 422, JSON.stringify(invalid.json));
    assert.equal(invalid.json.reason, "Invalid");
    const noContainers = deployment("web", "x");
    (noContainers.spec.template.spec as { containers?: unknown }).containers = undefined;
    assert.equal((await call("PATCH", applyPath("web"), noContainers)).status, 422);
    const missingNs = await call("PATCH", "/api/v1/namespaces/nowhere/secrets/s?fieldManager=berth", {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s", namespace: "nowhere" },
      stringData: { a: "b" },
    });
    assert.equal(missingNs.status, 404);
    const created = await call("PATCH", applyPath("web"), deployment("web", "registry.example/web:1"));
    assert.equal(created.status, 201, JSON.stringify(created.json));
    assert.equal(created.json.metadata.generation, 1);
    assert.equal(created.json.metadata.managedFields[0].manager, "berth");
    const again = await call("PATCH", applyPath("web"), deployment("web", "registry.example/web:1"));
    assert.equal(again.status, 200);
    assert.equal(again.json.metadata.generation, 1, "the same spec does not bump the generation");
  });

  it("rolls a Deployment out: observedGeneration, updatedReplicas, availableReplicas; kubectl reads it", async () => {
    const done = await until(
      () => sim.get("Deployment", "agents", "web"),
      (d) => (d?.status as { availableReplicas?: number } | undefined)?.availableReplicas === 1,
    );
    assert.equal(done?.status?.observedGeneration, 1);
    assert.equal(done?.status?.updatedReplicas, 1);
    if (!hasKubectl) {
      console.log("# notice: kubectl is not installed; its read of the simulator is not checked");
      return;
    }
    const kubeconfig = sim.writeKubeconfig(temp.dir);
    // Asynchronously: the simulator answers from this process's event loop.
    const { stdout: yaml } = await promisify(execFile)(
      "kubectl",
      [
        "--kubeconfig",
        kubeconfig,
        "--cache-dir",
        `${temp.dir}/kube-cache`,
        "get",
        "deploy",
        "-n",
        "agents",
        "-o",
        "yaml",
      ],
      { encoding: "utf8", timeout: 30_000 },
    );
    assert.match(yaml, /name: web/);
    assert.match(yaml, /image: registry\.example\/web:1/);
    assert.match(yaml, /availableReplicas: 1/);
    assert.match(yaml, /observedGeneration: 1/);
  });

  it("leaves a new ReplicaSet at ImagePullBackOff while the old one keeps serving", async () => {
    const next = await call(
      "PATCH",
      applyPath("web"),
      deployment("web", "registry.example/does-not-exist:2"),
    );
    assert.equal(next.json.metadata.generation, 2);
    const pods = await until(
      () => sim.objects("Pod", "agents", "app=web"),
      (list) => list.some((p) => JSON.stringify(p.status).includes("ImagePullBackOff")),
    );
    assert.equal(pods.length, 2, "old pod + failing new pod");
    const d = sim.get("Deployment", "agents", "web");
    assert.equal(d?.status?.observedGeneration, 2);
    assert.equal(d?.status?.updatedReplicas, 1);
    assert.equal(d?.status?.availableReplicas, 1, "the old pod still serves");
    assert.equal(d?.status?.unavailableReplicas, 1);
    const failing = pods.find((p) => JSON.stringify(p.status).includes("ImagePullBackOff"));
    const log = await call("GET", `/api/v1/namespaces/agents/pods/${failing?.metadata.name}/log?tailLines=5`);
    assert.equal(log.status, 400);
    assert.match(log.json.message, /waiting to start/);
  });

  it("lists with label selectors", async () => {
    await call("PATCH", applyPath("other"), deployment("other", "registry.example/other:1"));
    const names = async (selector: string) =>
      (
        await call(
          "GET",
          `/apis/apps/v1/namespaces/agents/deployments?labelSelector=${encodeURIComponent(selector)}`,
        )
      ).json.items.map((d: { metadata: { name: string } }) => d.metadata.name);
    assert.deepEqual(await names("tier=api"), ["other", "web"]);
    assert.deepEqual(await names("app=web"), ["web"]);
    assert.deepEqual(await names("app!=web,tier"), ["other"]);
    assert.deepEqual(await names("app in (web,nothing)"), ["web"]);
    assert.deepEqual(await names("!tier"), []);
    assert.equal((await call("GET", "/apis/apps/v1/deployments")).json.items.length, 2, "across namespaces");
  });

  it("deletes with propagation: Background removes ReplicaSets and pods, Orphan keeps them", async () => {
    assert.ok(sim.objects("ReplicaSet", "agents", "app=other").length > 0);
    const orphan = await call(
      "DELETE",
      "/apis/apps/v1/namespaces/agents/deployments/other?propagationPolicy=Orphan",
    );
    assert.equal(orphan.status, 200);
    assert.ok(sim.objects("ReplicaSet", "agents", "app=other").length > 0);
    const res = await call(
      "DELETE",
      "/apis/apps/v1/namespaces/agents/deployments/web",
      { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Background" },
      "application/json",
    );
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.equal(sim.get("Deployment", "agents", "web"), undefined);
    assert.deepEqual(sim.objects("ReplicaSet", "agents", "app=web"), []);
    assert.deepEqual(sim.objects("Pod", "agents", "app=web"), []);
    assert.equal((await call("GET", "/apis/apps/v1/namespaces/agents/deployments/web")).status, 404);
  });
});
