// What a real API server (and its Pod Security admission) requires of the rendered objects, beyond
// their schema: names that fit and cannot collide, user labels everywhere without overriding
// Berth's, native sidecars, the `restricted` Pod Security Standard, a disruption budget, network
// policies, a Redis password, configurable backing images and external database/Redis URIs.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type Component,
  type DesiredRevision,
  type KubeObject,
  LABELS,
  objectName,
  renderRevision,
} from "../src/index.js";
import { FULL, MINIMAL } from "./fixtures.js";

// biome-ignore lint/suspicious/noExplicitAny: the tests walk deep into the rendered JSON.
type Json = Record<string, any>;

const DNS_1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const COMPONENTS: Component[] = ["secrets", "postgres", "redis", "api", "queue"];

const withSpec = (
  rev: DesiredRevision,
  spec: Partial<DesiredRevision["resource_spec"]>,
): DesiredRevision => ({
  ...rev,
  resource_spec: { ...rev.resource_spec, ...spec },
});
const find = (objects: KubeObject[], kind: string): Json[] =>
  objects.filter((o) => o.kind === kind) as Json[];
/** Pod templates of the workloads, by workload name. */
const podTemplates = (objects: KubeObject[]): Array<[string, Json]> =>
  [...find(objects, "Deployment"), ...find(objects, "StatefulSet")].map((o) => [
    o.metadata.name,
    o.spec.template,
  ]);

describe("object names (from the deployment id, within Kubernetes' limits)", () => {
  it("differ for two deployments with one name (two workspaces, one namespace)", () => {
    const other = { ...MINIMAL, deployment_id: "0b6c7e9a-1111-4d2b-9c53-0000000000ff" };
    const a = new Set(renderRevision(MINIMAL).map((o) => `${o.kind}/${o.metadata.name}`));
    for (const o of renderRevision(other)) assert.ok(!a.has(`${o.kind}/${o.metadata.name}`), o.metadata.name);
  });

  it("differ for names that differ only after the 58th character", () => {
    const base = "a".repeat(58);
    const names = ["x", "y", "z"].map((tail, i) =>
      objectName(
        { deployment_id: `00000000-0000-4000-8000-00000000000${i}`, name: `${base}${tail}` },
        "postgres",
      ),
    );
    assert.equal(new Set(names).size, 3, names.join(" "));
  });

  it("are DNS-1035 labels, readable, and short enough for StatefulSet pods' controller-revision-hash label", () => {
    for (const name of [
      "My Agent",
      `${"Very Long_Name ".repeat(10)}!`,
      "123 agent",
      "___",
      "Ünïcode ägent",
      "",
    ]) {
      const rev = { deployment_id: FULL.deployment_id, name };
      for (const component of COMPONENTS) {
        const n = objectName(rev, component);
        assert.match(n, DNS_1035, `${name} → ${n}`);
        // `<StatefulSet>-<10-char hash>` is a label value: at most 63.
        assert.ok(n.length <= 52, `${n} is ${n.length} characters`);
        assert.ok(n.endsWith(`-${component}`), n);
      }
    }
    assert.match(objectName(FULL, "api"), /^my-agent-[0-9a-f]{10}-api$/);
  });
});

describe("labels and annotations", () => {
  it("puts the user's labels and annotations on every object and pod template; Berth's own labels win", () => {
    const rev = withSpec(FULL, { labels: { team: "agents", [LABELS.component]: "user-value" } });
    const objects = renderRevision(rev);
    for (const o of objects) {
      assert.equal(o.metadata.labels?.team, "agents", `${o.kind}/${o.metadata.name}`);
      assert.equal(o.metadata.annotations?.["prometheus.io/scrape"], "true", `${o.kind}/${o.metadata.name}`);
      assert.notEqual(o.metadata.labels?.[LABELS.component], "user-value");
    }
    for (const [name, template] of podTemplates(objects)) {
      assert.equal(template.metadata.labels.team, "agents", name);
      assert.equal(template.metadata.annotations["prometheus.io/scrape"], "true", name);
    }
  });

  it("renders only label values a cluster accepts", () => {
    for (const o of renderRevision(FULL)) {
      for (const [key, value] of Object.entries(o.metadata.labels ?? {})) {
        assert.match(value, LABEL_VALUE, `${o.kind}/${o.metadata.name} ${key}`);
        assert.ok(value.length <= 63);
      }
    }
  });

  it("keeps user labels off the database claim template (it can never change)", () => {
    const sts = find(renderRevision(FULL), "StatefulSet").find(
      (o) => o.metadata.name === objectName(FULL, "postgres"),
    );
    assert.deepEqual(sts?.spec.volumeClaimTemplates[0].metadata, { name: "data" });
  });
});

describe("containers", () => {
  it("renders a sidecar with restartPolicy Always as a native sidecar (an init container), after the init containers", () => {
    for (const d of find(renderRevision(FULL), "Deployment")) {
      const pod = d.spec.template.spec;
      assert.deepEqual(
        pod.initContainers.map((c: Json) => [c.name, c.restartPolicy]),
        [
          ["migrate", undefined],
          ["log-shipper", "Always"],
        ],
      );
      assert.deepEqual(
        pod.containers.map((c: Json) => c.name),
        [d.metadata.name.endsWith("-api") ? "api" : "queue", "proxy"],
      );
      assert.ok(pod.containers.every((c: Json) => c.restartPolicy === undefined));
    }
  });
});

/** The `restricted` Pod Security Standard's checks (what the API server's admission enforces). */
function restrictedViolations(pod: Json): string[] {
  const out: string[] = [];
  const podSc = pod.securityContext ?? {};
  const containers: Json[] = [...(pod.initContainers ?? []), ...pod.containers];
  for (const c of containers) {
    const sc = c.securityContext ?? {};
    if (sc.allowPrivilegeEscalation !== false) out.push(`${c.name}: allowPrivilegeEscalation != false`);
    if (!(sc.capabilities?.drop ?? []).includes("ALL")) out.push(`${c.name}: capabilities.drop lacks ALL`);
    if ((sc.capabilities?.add ?? []).some((a: string) => a !== "NET_BIND_SERVICE"))
      out.push(`${c.name}: adds capabilities`);
    if ((sc.runAsNonRoot ?? podSc.runAsNonRoot) !== true) out.push(`${c.name}: runAsNonRoot != true`);
    if ((sc.runAsUser ?? podSc.runAsUser) === 0) out.push(`${c.name}: runAsUser 0`);
    const seccomp = sc.seccompProfile?.type ?? podSc.seccompProfile?.type;
    if (seccomp !== "RuntimeDefault" && seccomp !== "Localhost") out.push(`${c.name}: seccompProfile`);
    if (sc.privileged) out.push(`${c.name}: privileged`);
  }
  const allowed = [
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "persistentVolumeClaim",
    "projected",
    "secret",
  ];
  for (const v of pod.volumes ?? []) {
    for (const key of Object.keys(v))
      if (key !== "name" && !allowed.includes(key)) out.push(`volume ${v.name}: ${key}`);
  }
  if (pod.hostNetwork || pod.hostPID || pod.hostIPC) out.push("host namespaces");
  return out;
}

describe("scale", () => {
  it("never renders zero replicas (a min_scale 0 stored before the control plane refused it gets one pod)", () => {
    const rev = withSpec(MINIMAL, { min_scale: 0, max_scale: 0, queue_min_scale: 0, queue_max_scale: 0 });
    assert.deepEqual(
      find(renderRevision(rev), "Deployment").map((d) => d.spec.replicas),
      [1, 1],
    );
  });
});

describe("production defaults", () => {
  it("every pod passes the restricted Pod Security Standard; Postgres and Redis run as their images' UID 999", () => {
    for (const rev of [MINIMAL, FULL]) {
      for (const [name, template] of podTemplates(renderRevision(rev))) {
        assert.deepEqual(restrictedViolations(template.spec), [], name);
      }
    }
    for (const sts of find(renderRevision(MINIMAL), "StatefulSet")) {
      const sc = sts.spec.template.spec.securityContext;
      assert.deepEqual([sc.runAsUser, sc.runAsGroup, sc.fsGroup], [999, 999, 999], sts.metadata.name);
    }
  });

  it("the check can fail: a user sidecar that asks for privilege escalation is reported", () => {
    const rev = withSpec(MINIMAL, {
      sidecars: [{ name: "root", image: "x", securityContext: { allowPrivilegeEscalation: true } }],
    });
    const api = find(renderRevision(rev), "Deployment")[0] as Json;
    assert.deepEqual(restrictedViolations(api.spec.template.spec), [
      "root: allowPrivilegeEscalation != false",
    ]);
  });

  it("renders a PodDisruptionBudget for the API pods only when there are several (or an HPA)", () => {
    assert.deepEqual(find(renderRevision(MINIMAL), "PodDisruptionBudget"), []);
    for (const rev of [FULL, withSpec(MINIMAL, { min_scale: 2, max_scale: 2 })]) {
      const [pdb] = find(renderRevision(rev), "PodDisruptionBudget");
      assert.equal(pdb?.spec.maxUnavailable, 1);
      assert.deepEqual(pdb?.spec.selector.matchLabels, {
        [LABELS.deployment]: rev.deployment_id,
        [LABELS.component]: "api",
      });
    }
  });

  it("lets only the deployment's own API and queue pods reach its Postgres and Redis", () => {
    const policies = find(renderRevision(MINIMAL), "NetworkPolicy");
    assert.deepEqual(
      policies.map((p) => [
        p.spec.podSelector.matchLabels[LABELS.component],
        p.spec.ingress[0].ports[0].port,
      ]),
      [
        ["postgres", 5432],
        ["redis", 6379],
      ],
    );
    for (const p of policies) {
      assert.deepEqual(p.spec.policyTypes, ["Ingress"]);
      const [from] = p.spec.ingress[0].from;
      assert.deepEqual(from.podSelector.matchLabels, { [LABELS.deployment]: MINIMAL.deployment_id });
      assert.deepEqual(from.podSelector.matchExpressions, [
        { key: LABELS.component, operator: "In", values: ["api", "queue"] },
      ]);
      assert.equal(from.namespaceSelector, undefined, "same namespace only");
    }
  });

  it("gives Redis a password, kept in the deployment's Secret and carried by REDIS_URI", () => {
    const objects = renderRevision(MINIMAL);
    const secret = find(objects, "Secret")[0] as Json;
    const password = secret.stringData["berth.redis-password"];
    assert.ok(typeof password === "string" && password.length >= 32);
    assert.equal(secret.stringData.REDIS_URI, `redis://:${password}@${objectName(MINIMAL, "redis")}:6379`);
    const redis = find(objects, "StatefulSet").find(
      (o) => o.metadata.name === objectName(MINIMAL, "redis"),
    ) as Json;
    const container = redis.spec.template.spec.containers[0];
    assert.deepEqual(container.args, ["--requirepass", "$(REDIS_PASSWORD)"]);
    assert.deepEqual(container.env[0].valueFrom.secretKeyRef, {
      name: objectName(MINIMAL, "secrets"),
      key: "berth.redis-password",
    });
    assert.ok(!JSON.stringify(objects.filter((o) => o.kind !== "Secret")).includes(password));
  });

  it("takes the Postgres and Redis images and their pull secrets from the listener's options", () => {
    const objects = renderRevision(MINIMAL, {
      postgresImage: "mirror.example/postgres:16.4",
      redisImage: "mirror.example/redis:7.4",
      imagePullSecrets: ["mirror-cred"],
    });
    const images = find(objects, "StatefulSet").map((s) => s.spec.template.spec.containers[0].image);
    assert.deepEqual(images, ["mirror.example/postgres:16.4", "mirror.example/redis:7.4"]);
    for (const s of find(objects, "StatefulSet")) {
      assert.deepEqual(s.spec.template.spec.imagePullSecrets, [{ name: "mirror-cred" }]);
    }
  });

  it("uses an external database / Redis (POSTGRES_URI_CUSTOM, REDIS_URI_CUSTOM) instead of in-cluster ones", () => {
    const rev: DesiredRevision = {
      ...MINIMAL,
      secrets: [
        ...MINIMAL.secrets,
        { name: "POSTGRES_URI_CUSTOM", value: "postgres://db.example:5432/agent" },
      ],
      secret_references: [
        ...MINIMAL.secret_references,
        { name: "REDIS_URI_CUSTOM", secret_name: "shared-redis", secret_key: "uri" },
      ],
    };
    const objects = renderRevision(rev);
    assert.deepEqual(
      objects.map((o) => o.kind).filter((k) => k === "StatefulSet" || k === "NetworkPolicy"),
      [],
    );
    assert.deepEqual(
      find(objects, "Service").map((s) => s.metadata.name),
      [objectName(rev, "api")],
    );
    const secret = find(objects, "Secret")[0] as Json;
    for (const key of ["DATABASE_URI", "POSTGRES_PASSWORD", "REDIS_URI", "berth.redis-password"]) {
      assert.equal(secret.stringData[key], undefined, key);
    }
    for (const d of find(objects, "Deployment")) {
      const env = d.spec.template.spec.containers[0].env as Json[];
      const from = (name: string) => env.find((e) => e.name === name)?.valueFrom.secretKeyRef;
      assert.deepEqual(from("DATABASE_URI"), {
        name: objectName(rev, "secrets"),
        key: "POSTGRES_URI_CUSTOM",
      });
      assert.deepEqual(from("REDIS_URI"), { name: "shared-redis", key: "uri" });
    }
  });
});
