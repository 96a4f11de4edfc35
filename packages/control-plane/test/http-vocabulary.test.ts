// Each deployment is answered in the names it was created with (issue 13). The replays follow
// what the official Terraform provider (langchain-ai/terraform-provider-langsmith,
// internal/provider/deployment_resource.go) sends and compares: create → read → update → import.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openPlane, type TestPlane } from "./helpers.js";
import { TEST_DATABASE_URL } from "./postgres.js";

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field, as a client reads JSON
type Json = Record<string, any>;

/** The provider's per-source configuration, as its createPayload builds it from HCL. */
interface Case {
  source: string;
  sourceConfig: Json;
  revisionConfig: Json;
  /** The revision inputs an update changes (its revisionPayload). */
  updatedRevisionConfig: Json;
  /** What the provider's import (sourceRevisionModelFromAPI) reads back from source_revision_config. */
  imported: string[];
}

const CASES: Case[] = [
  {
    source: "github",
    sourceConfig: {
      repo_url: "https://git.example/o/agent",
      deployment_type: "dev",
      build_on_push: false,
    },
    revisionConfig: { repo_ref: "main", langgraph_config_path: "langgraph.json" },
    updatedRevisionConfig: { repo_ref: "release", langgraph_config_path: "agents/langgraph.json" },
    imported: ["repo_ref", "langgraph_config_path"],
  },
  {
    source: "external_docker",
    sourceConfig: { resource_spec: { max_scale: 2, redis_memory_mb: 512 } },
    revisionConfig: { image_uri: "registry.example/agent:1" },
    updatedRevisionConfig: { image_uri: "registry.example/agent:2" },
    imported: ["image_uri"],
  },
  {
    source: "internal_template",
    sourceConfig: { template_id: "react-agent", deployment_type: "dev" },
    // No field of this source has two names: the same answer in either vocabulary.
    revisionConfig: {},
    updatedRevisionConfig: {},
    imported: [],
  },
];

const STORAGES = TEST_DATABASE_URL ? ["sqlite", "postgres"] : ["sqlite"];
if (!TEST_DATABASE_URL) console.log("DATABASE_URL unset: the vocabulary replays run on SQLite only");

for (const storage of STORAGES) {
  describe(`vocabulary per deployment (${storage})`, () => {
    let t: TestPlane;
    let close: () => Promise<void>;
    before(async () => {
      ({ plane: t, close } = await openPlane({}, storage));
    });
    after(async () => close());

    const call = async (method: "GET" | "POST" | "PATCH", url: string, payload?: Json) => {
      const res = await t.call({ method, url, ...(payload ? { payload } : {}) });
      assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
      return res.json() as Json;
    };
    /** The provider's read(): GET the deployment, then its latest revision. */
    const read = async (id: string) => {
      const deployment = await call("GET", `/v2/deployments/${id}`);
      const revision = await call("GET", `/v2/deployments/${id}/revisions/${deployment.latest_revision_id}`);
      return { deployment, revision };
    };

    for (const c of CASES) {
      it(`Terraform provider (langsmith_deployment) create → read → update → import, source ${c.source}: no drift`, async () => {
        const name = `tf-${c.source.replaceAll("_", "-")}-${storage}`;
        // Create: POST, then PATCH display_name (create does not take it), then poll the revision.
        const created = await call("POST", "/v2/deployments", {
          name,
          source: c.source,
          source_config: c.sourceConfig,
          source_revision_config: c.revisionConfig,
          secrets: [{ name: "OPENAI_API_KEY", value: "sk-test" }],
        });
        assert.equal(created.source, c.source);
        assert.ok(created.id && created.latest_revision_id);
        const patched = await call("PATCH", `/v2/deployments/${created.id}`, { display_name: "Agent" });
        assert.equal(patched.source, c.source);
        let { deployment, revision } = await read(created.id);
        // The provider's state takes `source` from the answer; RequiresReplace on it plans a
        // replacement whenever it differs from the configuration.
        assert.equal(deployment.source, c.source);
        assert.equal(revision.source, c.source);
        for (const [key, value] of Object.entries(c.revisionConfig)) {
          assert.equal(deployment.source_revision_config[key], value, key);
          assert.equal(revision.source_revision_config[key], value, `revision ${key}`);
        }
        if ("langgraph_config_path" in c.revisionConfig) {
          assert.equal("graph_config_path" in deployment.source_revision_config, false);
          assert.equal("graph_config_path" in revision.source_revision_config, false);
        }

        // Update: a revision change reads the current resource_spec, merges the configured fields
        // over it and POSTs a revision; display_name goes through PATCH.
        const body: Json = { source_revision_config: c.updatedRevisionConfig };
        if (c.sourceConfig.resource_spec) {
          const current = await call("GET", `/v2/deployments/${created.id}`);
          const spec = current.source_config.resource_spec as Json;
          assert.equal(spec.redis_memory_mb, 512);
          assert.equal("cache_memory_mb" in spec, false);
          body.source_config = { resource_spec: { ...spec, max_scale: 3 } };
        }
        const posted = await call("POST", `/v2/deployments/${created.id}/revisions`, body);
        assert.ok(posted.id);
        assert.equal(posted.source, c.source);
        await call("PATCH", `/v2/deployments/${created.id}`, { display_name: "Agent 2" });
        ({ deployment, revision } = await read(created.id));
        assert.equal(deployment.latest_revision_id, posted.id);
        assert.equal(deployment.source, c.source);
        if (c.sourceConfig.resource_spec) {
          assert.equal(deployment.source_config.resource_spec.max_scale, 3);
          assert.equal(deployment.source_config.resource_spec.redis_memory_mb, 512);
        }

        // Import: only the id is known; the provider adopts source and the revision inputs.
        ({ deployment } = await read(created.id));
        assert.equal(deployment.source, c.source);
        for (const key of c.imported) {
          assert.equal(deployment.source_revision_config[key], c.updatedRevisionConfig[key], key);
        }
        const listed = await call("GET", `/v2/deployments?name=${name}`);
        assert.equal(listed.resources[0]?.source, c.source);
        const revisions = await call("GET", `/v2/deployments/${created.id}/revisions`);
        for (const r of revisions.resources as Json[]) assert.equal(r.source, c.source);
      });
    }

    it("a deployment created in the neutral names keeps them, also after a PATCH in the real ones", async () => {
      const created = await call("POST", "/v2/deployments", {
        name: `neutral-${storage}`,
        source: "repo_host",
        source_config: { repo_url: "https://git.example/o/n" },
        source_revision_config: { repo_ref: "main", graph_config_path: "langgraph.json" },
        secrets: [],
      });
      assert.equal(created.source, "repo_host");
      const patched = await call("PATCH", `/v2/deployments/${created.id}`, {
        source_revision_config: { repo_ref: "main", langgraph_config_path: "other.json" },
      });
      assert.equal(patched.source, "repo_host");
      assert.equal(patched.source_revision_config.graph_config_path, "other.json");
      assert.equal("langgraph_config_path" in patched.source_revision_config, false);
      const revision = await call(
        "GET",
        `/v2/deployments/${created.id}/revisions/${patched.latest_revision_id}`,
      );
      assert.equal(revision.source, "repo_host");
      assert.equal(revision.source_revision_config.graph_config_path, "other.json");
    });

    it("a deployment created in the real names accepts a PATCH in the neutral ones and still answers in its own", async () => {
      const created = await call("POST", "/v2/deployments", {
        name: `real-${storage}`,
        source: "github",
        source_config: { repo_url: "https://git.example/o/r" },
        source_revision_config: { repo_ref: "main", langgraph_config_path: "langgraph.json" },
        secrets: [],
      });
      const patched = await call("PATCH", `/v2/deployments/${created.id}`, {
        source_revision_config: { repo_ref: "main", graph_config_path: "next.json" },
      });
      assert.equal(patched.source, "github");
      assert.equal(patched.source_revision_config.langgraph_config_path, "next.json");
      assert.equal("graph_config_path" in patched.source_revision_config, false);
      const docker = await call("POST", "/v2/deployments", {
        name: `real-docker-${storage}`,
        source: "external_docker",
        source_config: { resource_spec: { redis_cpu: 1 } },
        source_revision_config: { image_uri: "registry.example/agent:1" },
        secrets: [],
      });
      const repatched = await call("PATCH", `/v2/deployments/${docker.id}`, {
        source_config: { resource_spec: { cache_cpu: 2 } },
      });
      assert.equal(repatched.source, "external_docker");
      assert.equal(repatched.source_config.resource_spec.redis_cpu, 2);
      assert.equal("cache_cpu" in repatched.source_config.resource_spec, false);
    });
  });
}
