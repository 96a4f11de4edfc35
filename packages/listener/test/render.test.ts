import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  type Component,
  inClusterUrl,
  LABELS,
  objectName,
  renderDockerfile,
  renderRevision,
  toPrune,
} from "../src/index.js";
import { FULL, MINIMAL } from "./fixtures.js";

const nameOf = (component: Component) => objectName(FULL, component);

const golden = path.join(path.dirname(fileURLToPath(import.meta.url)), "golden");

/**
 * Compares with a golden file; BERTH_UPDATE_GOLDEN=1 rewrites it (review the diff before committing).
 * JSON files are compared parsed, so the formatter's layout of them does not matter.
 */
function matchesGolden(name: string, actual: string): void {
  const file = path.join(golden, name);
  if (process.env.BERTH_UPDATE_GOLDEN === "1") fs.writeFileSync(file, actual);
  const expected = fs.readFileSync(file, "utf8");
  if (name.endsWith(".json")) assert.deepEqual(JSON.parse(actual), JSON.parse(expected), `${name} differs`);
  else assert.equal(actual, expected, `${name} differs from its golden file`);
}

describe("renderRevision (golden files)", () => {
  it("renders a revision with the spec's defaults", () => {
    matchesGolden("minimal.json", `${JSON.stringify(renderRevision(MINIMAL), null, 2)}\n`);
  });

  it("renders every resource_spec field exactly as the spec lists it", () => {
    matchesGolden("full.json", `${JSON.stringify(renderRevision(FULL), null, 2)}\n`);
  });

  it("is pure: the same input gives the same objects and the input is not changed", () => {
    const before = JSON.stringify(FULL);
    assert.deepEqual(renderRevision(FULL), renderRevision(FULL));
    assert.equal(JSON.stringify(FULL), before);
  });
});

describe("renderRevision (properties)", () => {
  const objects = renderRevision(FULL);
  const find = (kind: string, name: string) => {
    const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
    assert.ok(found, `${kind}/${name} rendered`);
    // biome-ignore lint/suspicious/noExplicitAny: the test walks deep into the rendered JSON.
    return found as Record<string, any>;
  };

  it("labels every object with the deployment and revision ids, in the namespace", () => {
    for (const o of objects) {
      assert.equal(o.metadata.namespace, "agents");
      assert.equal(o.metadata.labels?.[LABELS.deployment], FULL.deployment_id);
      assert.equal(o.metadata.labels?.[LABELS.revision], FULL.revision_id);
    }
  });

  it("keeps selectors free of the revision id so a new revision rolls the same Deployment", () => {
    const api = find("Deployment", nameOf("api"));
    assert.equal(api.spec.selector.matchLabels[LABELS.revision], undefined);
    assert.equal(api.spec.template.metadata.labels[LABELS.revision], FULL.revision_id);
  });

  it("maps cpu/memory to requests/limits and min..max scale to the HPA", () => {
    const api = find("Deployment", nameOf("api"));
    assert.deepEqual(api.spec.template.spec.containers[0].resources, {
      requests: { cpu: "500m", memory: "1024Mi" },
      limits: { cpu: "1500m", memory: "1536Mi" },
    });
    const hpa = find("HorizontalPodAutoscaler", nameOf("api"));
    assert.equal(hpa.spec.minReplicas, 2);
    assert.equal(hpa.spec.maxReplicas, 5);
    assert.equal(find("HorizontalPodAutoscaler", nameOf("queue")).spec.maxReplicas, 3);
  });

  it("renders no autoscaler for a fixed scale (min = max), so the listener prunes one", () => {
    const fixed = renderRevision(MINIMAL);
    assert.deepEqual(
      fixed.filter((o) => o.kind === "HorizontalPodAutoscaler"),
      [],
      "min_scale = max_scale = 1",
    );
    const scaled = renderRevision({ ...MINIMAL, resource_spec: { ...MINIMAL.resource_spec, max_scale: 3 } });
    assert.deepEqual(
      scaled.filter((o) => o.kind === "HorizontalPodAutoscaler").map((o) => o.metadata.name),
      [nameOf("api")],
      "the queue keeps its own (fixed) scale",
    );
    assert.deepEqual(
      toPrune(fixed, scaled).map((o) => `${o.kind}/${o.metadata.name}`),
      [`HorizontalPodAutoscaler/${nameOf("api")}`, `PodDisruptionBudget/${nameOf("api")}`],
    );
  });

  it("never puts a secret value in a Deployment; env comes from secretKeyRef", () => {
    const text = JSON.stringify(objects.filter((o) => o.kind !== "Secret"));
    assert.ok(!text.includes("sk-test"));
    assert.ok(!text.includes("p@ss/word"));
    const env = find("Deployment", nameOf("api")).spec.template.spec.containers[0].env;
    assert.deepEqual(
      env.find((e: { name: string }) => e.name === "ANTHROPIC_API_KEY").valueFrom.secretKeyRef,
      { name: "shared-keys", key: "anthropic" },
    );
    assert.equal(find("Secret", nameOf("secrets")).stringData.DATABASE_URI.includes("p%40ss%2Fword"), true);
  });

  it("gives the Service's in-cluster URL and what a new render prunes", () => {
    assert.equal(inClusterUrl(FULL), `http://${nameOf("api")}.agents.svc.cluster.local:8000`);
    const live = [
      ...objects,
      { ...objects[0], kind: "ConfigMap", metadata: { name: "old" } },
    ] as typeof objects;
    assert.deepEqual(
      toPrune(objects, live).map((o) => `${o.kind}/${o.metadata.name}`),
      ["ConfigMap/old"],
    );
  });
});

describe("renderDockerfile (berth build; no container engine here, so the text is tested)", () => {
  it("writes the Berth agent server image's Dockerfile", () => {
    matchesGolden("Dockerfile", renderDockerfile());
  });
});
