// `berth listener` configuration: flags and environment parsed once, readable errors.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseListenerConfig } from "../src/index.js";

const ID = "7D3F6C1E-0000-4000-8000-00000000000A";
const base = { controlPlane: "https://cp.example/", listenerId: ID };

describe("parseListenerConfig", () => {
  it("reads the key from the environment only, namespaces from repeated or comma-separated flags", () => {
    const config = parseListenerConfig({
      flags: { ...base, namespace: ["agents,staging", "agents"], kubeconfig: "/k/config" },
      env: { BERTH_LISTENER_KEY: "berth_listener_x" },
    });
    assert.equal(config.controlPlaneUrl, "https://cp.example");
    assert.equal(config.listenerId, ID.toLowerCase());
    assert.equal(config.key, "berth_listener_x");
    assert.deepEqual(config.namespaces, ["agents", "staging"]);
    assert.deepEqual(config.kube, { kind: "file", path: "/k/config" });
    assert.equal(config.pollMs, null);
  });

  it("uses the in-cluster config inside a pod, the default kubeconfig elsewhere", () => {
    const env = { BERTH_LISTENER_KEY: "k" };
    assert.deepEqual(
      parseListenerConfig({ flags: base, env: { ...env, KUBERNETES_SERVICE_HOST: "10.0.0.1" } }).kube,
      {
        kind: "in-cluster",
      },
    );
    assert.deepEqual(parseListenerConfig({ flags: base, env }).kube, { kind: "default" });
    assert.deepEqual(parseListenerConfig({ flags: { ...base, inCluster: true }, env }).kube, {
      kind: "in-cluster",
    });
  });

  it("refuses a missing key, a bad id, a bad URL, a bad namespace or interval", () => {
    const env = { BERTH_LISTENER_KEY: "k" };
    assert.throws(() => parseListenerConfig({ flags: base, env: {} }), /BERTH_LISTENER_KEY/);
    assert.throws(() => parseListenerConfig({ flags: { ...base, listenerId: "nope" }, env }), /UUID/);
    assert.throws(() => parseListenerConfig({ flags: { ...base, controlPlane: "cp:8124" }, env }), /http/);
    assert.throws(() => parseListenerConfig({ flags: { ...base, namespace: ["Bad_NS"] }, env }), /namespace/);
    assert.throws(() => parseListenerConfig({ flags: { ...base, pollInterval: "0" }, env }), /poll-interval/);
    assert.throws(
      () => parseListenerConfig({ flags: { ...base, kubeconfig: "/k", inCluster: true }, env }),
      /not both/,
    );
  });

  it("takes the Postgres and Redis images and their pull secrets from flags or the environment", () => {
    const env = { BERTH_LISTENER_KEY: "k" };
    assert.deepEqual(parseListenerConfig({ flags: base, env }).render, {
      postgresImage: "postgres:16",
      redisImage: "redis:7",
      imagePullSecrets: [],
    });
    const fromFlags = parseListenerConfig({
      flags: {
        ...base,
        postgresImage: "m.example/pg:16",
        redisImage: "m.example/redis:7",
        imagePullSecret: ["a,b", "a"],
      },
      env: { ...env, BERTH_POSTGRES_IMAGE: "ignored" },
    }).render;
    assert.deepEqual(fromFlags, {
      postgresImage: "m.example/pg:16",
      redisImage: "m.example/redis:7",
      imagePullSecrets: ["a", "b"],
    });
    const fromEnv = parseListenerConfig({
      flags: base,
      env: { ...env, BERTH_REDIS_IMAGE: "r:1", BERTH_IMAGE_PULL_SECRETS: "cred" },
    }).render;
    assert.deepEqual([fromEnv.redisImage, fromEnv.imagePullSecrets], ["r:1", ["cred"]]);
    assert.throws(
      () => parseListenerConfig({ flags: { ...base, postgresImage: "a b" }, env }),
      /--postgres-image/,
    );
    assert.throws(
      () => parseListenerConfig({ flags: { ...base, imagePullSecret: ["Bad_Name"] }, env }),
      /pull-secret/,
    );
  });
});
