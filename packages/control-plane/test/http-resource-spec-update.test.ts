// The Terraform provider's update of a resource_spec: it reads the deployment, merges its own
// fields into `source_config.resource_spec` and sends the whole object back (POST …/revisions, or
// PATCH). Derived fields (limits, queue sizes) are answered null unless chosen, as the real
// service answers them, so what comes back follows the new values; the listener, which runs the
// deployment, is given them computed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { addListener, usePlane, waitFor } from "./helpers.js";

const plane = usePlane();

type Spec = Record<string, unknown>;
interface Deployment {
  id: string;
  latest_revision_id: string;
  source_config: { resource_spec: Spec };
}

/** A listener (with its key) to place deployments on: its desired state shows what it would run. */
async function listener(computeId: string): Promise<{ id: string; key: string }> {
  const l = await addListener(plane(), computeId);
  return { id: l.id, key: l.listener_key };
}

/** The resource_spec the listener is told to run for `revisionId`, once it is waiting for it. */
async function runSpec(l: { id: string; key: string }, deploymentId: string, revisionId: string) {
  const state = await waitFor(
    async () =>
      (
        await plane().raw({
          method: "GET",
          url: `/v2/listeners/${l.id}/desired-state`,
          headers: { authorization: `Bearer ${l.key}` },
        })
      ).json<{
        deployments: Array<{
          deployment_id: string;
          revision: { revision_id: string; resource_spec: Spec } | null;
        }>;
      }>(),
    (s) =>
      s.deployments.some((d) => d.deployment_id === deploymentId && d.revision?.revision_id === revisionId),
  );
  const entry = state.deployments.find((d) => d.deployment_id === deploymentId);
  return entry?.revision?.resource_spec ?? {};
}

async function get(id: string): Promise<Deployment> {
  const res = await plane().call({ method: "GET", url: `/v2/deployments/${id}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Deployment>();
}

describe("resource_spec read, changed and sent back whole", () => {
  it("POST …/revisions with the GET's spec, cpu 4 and memory doubled: accepted, limits and queue follow", async () => {
    const l = await listener("tf-cluster");
    const created = await plane().call({
      method: "POST",
      url: "/v2/deployments",
      payload: {
        name: "tf-agent",
        source: "external_docker",
        source_config: { resource_spec: { cpu: 1 }, listener_id: l.id },
        source_revision_config: { image_uri: "registry.example.com/agent:v1" },
        secrets: [],
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const d = created.json<Deployment>();
    const first = await runSpec(l, d.id, d.latest_revision_id);
    assert.deepEqual(
      [first.cpu, first.cpu_limit, first.memory_mb, first.memory_limit_mb, first.queue_cpu],
      [1, 2, 2048, 4096, 1],
      "the listener runs the defaults",
    );

    const read = (await get(d.id)).source_config.resource_spec;
    // As the real service answers: base values filled in, derived ones left to their defaults.
    assert.deepEqual([read.min_scale, read.max_scale, read.cpu, read.memory_mb], [1, 1, 1, 2048]);
    for (const field of [
      "cpu_limit",
      "memory_limit_mb",
      "queue_cpu",
      "queue_memory_limit_mb",
      "redis_cpu_limit",
    ]) {
      assert.equal(read[field], null, field);
    }

    const merged = { ...read, cpu: 4, memory_mb: 4096 };
    const revised = await plane().call({
      method: "POST",
      url: `/v2/deployments/${d.id}/revisions`,
      payload: {
        source_revision_config: { image_uri: "registry.example.com/agent:v1" },
        source_config: { resource_spec: merged },
      },
    });
    assert.equal(revised.statusCode, 201, revised.body);
    const revisionId = revised.json<{ id: string }>().id;

    const after = (await get(d.id)).source_config.resource_spec;
    assert.deepEqual([after.cpu, after.memory_mb, after.cpu_limit, after.queue_cpu], [4, 4096, null, null]);
    const run = await runSpec(l, d.id, revisionId);
    assert.deepEqual(
      {
        cpu_limit: run.cpu_limit,
        memory_limit_mb: run.memory_limit_mb,
        queue_cpu: run.queue_cpu,
        queue_cpu_limit: run.queue_cpu_limit,
        queue_memory_mb: run.queue_memory_mb,
        queue_memory_limit_mb: run.queue_memory_limit_mb,
      },
      {
        cpu_limit: 8,
        memory_limit_mb: 8192,
        queue_cpu: 4,
        queue_cpu_limit: 8,
        queue_memory_mb: 4096,
        queue_memory_limit_mb: 8192,
      },
    );

    // A limit the client does choose is its choice: below the request it is still refused.
    const pinned = await plane().call({
      method: "POST",
      url: `/v2/deployments/${d.id}/revisions`,
      payload: { source_config: { resource_spec: { ...after, cpu: 6, cpu_limit: 4 } } },
    });
    assert.equal(pinned.statusCode, 400, pinned.body);
    assert.match(
      pinned.json<{ detail: string }>().detail,
      /cpu \(6\) must not exceed resource_spec\.cpu_limit \(4\)/,
    );
  });

  it("PATCH: a value the client chose stays through a later read-modify-write; the rest follows", async () => {
    const l = await listener("patch-cluster");
    const created = await plane().call({
      method: "POST",
      url: "/v2/deployments",
      payload: {
        name: "patched-agent",
        source: "external_container",
        source_config: { resource_spec: { cpu: 2, queue_cpu: 0.5 }, listener_id: l.id },
        source_revision_config: { image_uri: "registry.example.com/agent:v1" },
        secrets: [],
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const d = created.json<Deployment>();
    const read = (await get(d.id)).source_config.resource_spec;
    assert.equal(read.queue_cpu, 0.5, "a chosen value is answered");
    const patched = await plane().call({
      method: "PATCH",
      url: `/v2/deployments/${d.id}`,
      payload: { source_config: { resource_spec: { ...read, cpu: 4, memory_mb: 4096 } } },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const revisionId = patched.json<Deployment>().latest_revision_id;
    const run = await runSpec(l, d.id, revisionId);
    assert.deepEqual(
      [run.cpu, run.cpu_limit, run.queue_cpu, run.queue_cpu_limit, run.memory_limit_mb, run.queue_memory_mb],
      [4, 8, 0.5, 1, 8192, 4096],
    );
  });
});
