// Validates every rendered object against the Kubernetes OpenAPI schemas (as shipped, compiled to
// validators, by the kubernetes-models package): a render the API server would reject fails here.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Deployment, StatefulSet } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { Secret, Service } from "kubernetes-models/v1";
import { renderRevision } from "../src/index.js";
import type { KubeObject } from "../src/types.js";
import { FULL, MINIMAL } from "./fixtures.js";

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  "apps/v1/Deployment": Deployment,
  "apps/v1/StatefulSet": StatefulSet,
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "networking.k8s.io/v1/NetworkPolicy": NetworkPolicy,
};

function validate(object: KubeObject): void {
  const Model = MODELS[`${object.apiVersion}/${object.kind}`];
  assert.ok(Model, `a schema for ${object.apiVersion} ${object.kind}`);
  new Model(object as never).validate();
}

describe("rendered objects against the Kubernetes OpenAPI schemas", () => {
  for (const [label, rev] of [
    ["defaults", MINIMAL],
    ["every field", FULL],
  ] as const) {
    it(`accepts every object of a revision with ${label}`, () => {
      for (const object of renderRevision(rev)) validate(object);
    });
  }

  it("the check can fail: a Deployment without a selector is rejected", () => {
    const deployment = renderRevision(MINIMAL).find((o) => o.kind === "Deployment") as KubeObject;
    const broken = { ...deployment, spec: { ...(deployment.spec as object), selector: undefined } };
    assert.throws(() => validate(broken));
  });
});
