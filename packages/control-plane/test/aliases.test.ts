// The real service's field names are accepted as input and stored under the canonical names.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normalizeAliases, realSourceConfig, vocabularyOf } from "../src/schemas/aliases.js";

describe("input aliases", () => {
  it("renames sources, langgraph_config_path, redis_* and k8s_namespace", () => {
    const out = normalizeAliases({
      source: "github",
      revision_source: "internal_docker",
      source_config: {
        resource_spec: {
          redis_cpu: 1,
          redis_cpu_limit: 2,
          redis_memory_mb: 3,
          redis_memory_limit_mb: 4,
          cpu: 1,
        },
        listener_config: { k8s_namespace: "ns" },
      },
      source_revision_config: { langgraph_config_path: "langgraph.json", repo_ref: "main" },
    });
    assert.deepEqual(out, {
      source: "repo_host",
      revision_source: "internal_container",
      source_config: {
        resource_spec: {
          cache_cpu: 1,
          cache_cpu_limit: 2,
          cache_memory_mb: 3,
          cache_memory_limit_mb: 4,
          cpu: 1,
        },
        listener_config: { cluster_namespace: "ns" },
      },
      source_revision_config: { graph_config_path: "langgraph.json", repo_ref: "main" },
    });
    assert.equal(
      (normalizeAliases({ source: "external_docker" }) as { source: string }).source,
      "external_container",
    );
  });

  it("the canonical name wins when both are sent; odd shapes pass through untouched", () => {
    const out = normalizeAliases({
      source_revision_config: { langgraph_config_path: "a", graph_config_path: "b" },
    });
    assert.deepEqual(out, { source_revision_config: { graph_config_path: "b" } });
    for (const odd of [null, 1, "x", [1], { source_config: [1] }, { source_revision_config: null }]) {
      assert.deepEqual(normalizeAliases(odd), odd);
    }
  });

  it("detects the vocabulary of a body and renders resource_spec and listener_config back in the real names", () => {
    assert.equal(vocabularyOf({ source: "repo_host" }), "neutral");
    assert.equal(vocabularyOf({ source: "internal_template" }), "neutral");
    assert.equal(vocabularyOf({ source: "external_docker" }), "real");
    assert.equal(vocabularyOf({ source_config: { listener_config: { k8s_namespace: "n" } } }), "real");
    assert.equal(vocabularyOf({ source_config: { resource_spec: { redis_cpu: 1 } } }), "real");
    assert.equal(vocabularyOf({ source_revision_config: { langgraph_config_path: "g" } }), "real");
    assert.equal(vocabularyOf(null), "neutral");
    assert.deepEqual(
      realSourceConfig({
        repo_url: null,
        resource_spec: { cache_cpu: 1, cache_memory_limit_mb: 2, cpu: 1 },
        listener_config: { cluster_namespace: "ns" },
      }),
      {
        repo_url: null,
        resource_spec: { redis_cpu: 1, redis_memory_limit_mb: 2, cpu: 1 },
        listener_config: { k8s_namespace: "ns" },
      },
    );
  });
});
