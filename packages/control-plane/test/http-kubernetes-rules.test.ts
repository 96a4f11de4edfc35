// What a Kubernetes API server would refuse is refused at create/PATCH time (issue 26): a 422 whose
// `loc` names the field, instead of a revision that fails at apply, or a cluster that never says.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { addListener, externalBody, usePlane } from "./helpers.js";
import { deploymentCreator, refusedAt, SPEC } from "./kubernetes-rules-helpers.js";

const plane = usePlane();
const { create, name } = deploymentCreator(plane, "k8s-rules");

describe("resource_spec: the seven inputs a real API server refused", () => {
  it("a label value with a space", async () => {
    refusedAt(await create({ labels: { team: "my team" } }), [...SPEC, "labels", "team"], /no spaces/);
    refusedAt(await create({ labels: { "my key": "x" } }), [...SPEC, "labels", "my key"]);
  });

  it("a sidecar with restartPolicy Always is accepted (rendered as a native sidecar); OnFailure is refused", async () => {
    const ok = await create({
      sidecars: [{ name: "shipper", image: "fluent-bit:3", restartPolicy: "Always" }],
    });
    assert.equal(ok.statusCode, 201, ok.body);
    refusedAt(
      await create({ sidecars: [{ name: "shipper", image: "fluent-bit:3", restartPolicy: "OnFailure" }] }),
      [...SPEC, "sidecars", 0, "restartPolicy"],
    );
  });

  it("a sidecar named like the main container, or like an init container", async () => {
    refusedAt(
      await create({ sidecars: [{ name: "api", image: "x" }] }),
      [...SPEC, "sidecars", 0, "name"],
      /main container/,
    );
    refusedAt(await create({ init_containers: [{ name: "queue", image: "x" }] }), [
      ...SPEC,
      "init_containers",
      0,
      "name",
    ]);
    refusedAt(
      await create({ init_containers: [{ name: "a", image: "x" }], sidecars: [{ name: "a", image: "y" }] }),
      [...SPEC, "sidecars", 0, "name"],
      /init_containers\[0\]/,
    );
  });

  it("two mounts on one path", async () => {
    const volumes = [
      { name: "a", emptyDir: {} },
      { name: "b", emptyDir: {} },
    ];
    refusedAt(
      await create({
        volumes,
        volume_mounts: [
          { name: "a", mountPath: "/data" },
          { name: "b", mountPath: "/data" },
        ],
      }),
      [...SPEC, "volume_mounts", 1, "mountPath"],
      /mounted twice/,
    );
    refusedAt(
      await create({
        volumes,
        sidecars: [
          {
            name: "s",
            image: "x",
            volumeMounts: [
              { name: "a", mountPath: "/d" },
              { name: "b", mountPath: "/d" },
            ],
          },
        ],
      }),
      [...SPEC, "sidecars", 0, "volumeMounts", 1, "mountPath"],
    );
  });

  it("a service account name that is not a DNS name", async () => {
    refusedAt(
      await create({ service_account_name: "Agent_SA" }),
      [...SPEC, "service_account_name"],
      /DNS-1123/,
    );
  });

  it("an unknown field inside a volume (not dropped silently)", async () => {
    const issue = refusedAt(await create({ volumes: [{ name: "v", configMap: { name: "c", bogus: 1 } }] }), [
      ...SPEC,
      "volumes",
      0,
      "configMap",
      "bogus",
    ]);
    assert.equal(issue.type, "extra_forbidden");
    refusedAt(await create({ volumes: [{ name: "v", hostPath: { path: "/" } }] }), [
      ...SPEC,
      "volumes",
      0,
      "hostPath",
    ]);
  });

  it("a volume with two sources (or none)", async () => {
    refusedAt(
      await create({ volumes: [{ name: "v", emptyDir: {}, configMap: { name: "c" } }] }),
      [...SPEC, "volumes", 0],
      /exactly one source \(2 given\)/,
    );
    refusedAt(await create({ volumes: [{ name: "v" }] }), [...SPEC, "volumes", 0], /exactly one source/);
  });
});

describe("resource_spec: the rest of what a cluster checks", () => {
  it("label and annotation keys, Berth's own keys, the annotations' total size", async () => {
    refusedAt(
      await create({ labels: { "berth.dev/deployment-id": "x" } }),
      [...SPEC, "labels", "berth.dev/deployment-id"],
      /reserved/,
    );
    refusedAt(await create({ labels: { "app.kubernetes.io/managed-by": "me" } }), [
      ...SPEC,
      "labels",
      "app.kubernetes.io/managed-by",
    ]);
    refusedAt(await create({ labels: { ["a".repeat(64)]: "x" } }), [...SPEC, "labels", "a".repeat(64)], /63/);
    refusedAt(await create({ labels: { team: "x".repeat(64) } }), [...SPEC, "labels", "team"]);
    refusedAt(await create({ annotations: { "Bad Key/x": "v" } }), [...SPEC, "annotations", "Bad Key/x"]);
    const sized = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, "v".repeat(4096)]));
    assert.equal((await create({ annotations: sized(63) })).statusCode, 201, "63 × 4 KiB fits in 256 KiB");
    refusedAt(await create({ annotations: sized(64) }), [...SPEC, "annotations"], /Kubernetes allows 262144/);
    const ok = await create({
      labels: { team: "agents", "example.com/tier": "gold", empty: "" },
      annotations: { "example.com/note": "any text, with spaces" },
    });
    assert.equal(ok.statusCode, 201, ok.body);
  });

  it("mounts name a volume, are absolute, have relative subPaths", async () => {
    refusedAt(await create({ volume_mounts: [{ name: "missing", mountPath: "/x" }] }), [
      ...SPEC,
      "volume_mounts",
      0,
      "name",
    ]);
    const volumes = [{ name: "v", emptyDir: {} }];
    refusedAt(await create({ volumes, volume_mounts: [{ name: "v", mountPath: "rel" }] }), [
      ...SPEC,
      "volume_mounts",
      0,
      "mountPath",
    ]);
    refusedAt(await create({ volumes, volume_mounts: [{ name: "v", mountPath: "/x", subPath: "../up" }] }), [
      ...SPEC,
      "volume_mounts",
      0,
      "subPath",
    ]);
    refusedAt(await create({ volumes: [...volumes, { name: "v", emptyDir: {} }] }), [
      ...SPEC,
      "volumes",
      1,
      "name",
    ]);
  });

  it("volume sources as core/v1 has them: required fields, modes, quantities", async () => {
    refusedAt(await create({ volumes: [{ name: "v", persistentVolumeClaim: {} }] }), [
      ...SPEC,
      "volumes",
      0,
      "persistentVolumeClaim",
      "claimName",
    ]);
    refusedAt(await create({ volumes: [{ name: "v", emptyDir: { sizeLimit: "lots" } }] }), [
      ...SPEC,
      "volumes",
      0,
      "emptyDir",
      "sizeLimit",
    ]);
    refusedAt(await create({ volumes: [{ name: "v", secret: { secretName: "s", defaultMode: 4095 } }] }), [
      ...SPEC,
      "volumes",
      0,
      "secret",
      "defaultMode",
    ]);
    const ok = await create({
      volumes: [
        { name: "a", configMap: { name: "c", items: [{ key: "k", path: "p" }], defaultMode: 420 } },
        { name: "b", secret: { secretName: "s" } },
        { name: "c", emptyDir: { medium: "Memory", sizeLimit: "64Mi" } },
        { name: "d", persistentVolumeClaim: { claimName: "claim" } },
        {
          name: "e",
          projected: { sources: [{ serviceAccountToken: { path: "token", expirationSeconds: 3600 } }] },
        },
        {
          name: "f",
          downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] },
        },
        { name: "g", csi: { driver: "secrets-store.csi.k8s.io", volumeAttributes: { a: "b" } } },
      ],
    });
    assert.equal(ok.statusCode, 201, ok.body);
  });

  it("containers: quantities, requests within limits, env sources, security contexts, unknown fields", async () => {
    const sidecar = (extra: Record<string, unknown>) => ({ sidecars: [{ name: "s", image: "x", ...extra }] });
    const at = [...SPEC, "sidecars", 0];
    refusedAt(await create(sidecar({ resources: { limits: { cpu: "lots" } } })), [
      ...at,
      "resources",
      "limits",
      "cpu",
    ]);
    refusedAt(
      await create(sidecar({ resources: { requests: { memory: "2Gi" }, limits: { memory: "1Gi" } } })),
      [...at, "resources", "requests", "memory"],
    );
    refusedAt(await create(sidecar({ env: [{ name: "A", valueFrom: {} }] })), [...at, "env", 0, "valueFrom"]);
    refusedAt(
      await create(
        sidecar({ env: [{ name: "A", valueFrom: { secretKeyRef: { name: "s", key: "bad key" } } }] }),
      ),
      [...at, "env", 0, "valueFrom", "secretKeyRef", "key"],
    );
    refusedAt(await create(sidecar({ securityContext: { runAsUser: "root" } })), [
      ...at,
      "securityContext",
      "runAsUser",
    ]);
    refusedAt(await create(sidecar({ securityContext: { priviledged: true } })), [
      ...at,
      "securityContext",
      "priviledged",
    ]);
    refusedAt(
      await create(sidecar({ ports: [{ containerPort: 80 }] })),
      [...at, "ports"],
      /resource_spec containers take/,
    );
    refusedAt(await create(sidecar({ image: " x" })), [...at, "image"]);
    const ok = await create(
      sidecar({
        resources: { requests: { cpu: "250m", memory: "128Mi" }, limits: { cpu: "1", memory: "1Gi" } },
        env: [{ name: "A", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
        envFrom: [{ secretRef: { name: "shared" } }],
        securityContext: { runAsNonRoot: true, capabilities: { drop: ["ALL"] } },
      }),
    );
    assert.equal(ok.statusCode, 201, ok.body);
  });

  it("image pull secret and secret reference names Kubernetes accepts", async () => {
    refusedAt(await create({ image_pull_secrets: [{ name: "Reg_Cred" }] }), [
      ...SPEC,
      "image_pull_secrets",
      0,
      "name",
    ]);
    refusedAt(
      await create({}, { secret_references: [{ name: "A", secret_name: "Shared Keys", secret_key: "k" }] }),
      ["body", "secret_references", 0, "secret_name"],
    );
    refusedAt(
      await create({}, { secret_references: [{ name: "A", secret_name: "shared", secret_key: "a/b" }] }),
      ["body", "secret_references", 0, "secret_key"],
    );
  });

  it("a cluster namespace that is not a DNS label (on a listener that serves any namespace)", async () => {
    const listener = await addListener(plane(), "k8s-rules-any", []);
    const res = await plane().call({
      method: "POST",
      url: "/v2/deployments",
      payload: externalBody(name(), {
        source_config: {
          resource_spec: {},
          listener_id: listener.id,
          listener_config: { cluster_namespace: "Agents_NS" },
        },
      }),
    });
    refusedAt(res, ["body", "source_config", "listener_config", "cluster_namespace"], /DNS-1123 label/);
  });
});
