// Tracing through `berth up` (issues 17, 30): the example agent deployed on first start traces by
// default to its tracing project; one run through the official LangGraph SDK yields a trace with
// the graph's nodes, the model call (token usage) and the tool call as children, and the agent
// run's ids in its metadata; the official langsmith SDK reads the same runs back, and its
// evaluate() runs an experiment against the deployed agent.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client } from "@langchain/langgraph-sdk";
import { Client as LangSmith } from "langsmith";
import { evaluate } from "langsmith/evaluation";
import { ControlPlaneUnderTest } from "./control-plane-helpers.js";

const plane = new ControlPlaneUnderTest("tracing-e2e-key-0123456789abcdef");

interface RunNode {
  id: string;
  name: string;
  run_type: string;
  status: string;
  total_tokens: number | null;
  prompt_tokens: number | null;
  metadata: Record<string, unknown>;
  children: RunNode[];
}

function flatten(node: RunNode): RunNode[] {
  return [node, ...node.children.flatMap(flatten)];
}

async function poll<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) assert.fail(`timed out; last value: ${JSON.stringify(value).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("berth up: deployed agents trace to their tracing project", () => {
  before(() => plane.start());
  after(async () => {
    await plane.stop();
    plane.cleanup();
  });

  it("one run of the example agent becomes a trace: nodes, the model call with tokens, the tool call, the run's ids", async () => {
    const list = await plane.api("GET", "/v2/deployments?name=example-agent");
    const example = list.json.resources[0];
    await plane.waitFor(example.id, example.latest_revision_id, ["DEPLOYED"]);
    const deployment = (await plane.api("GET", `/v2/deployments/${example.id}`)).json;
    const agentUrl = deployment.source_config.custom_url as string;

    const info = await fetch(`${agentUrl}/info`, { headers: { "X-Api-Key": plane.key } });
    assert.equal(((await info.json()) as { flags: { langsmith: boolean } }).flags.langsmith, true);

    const client = new Client({ apiUrl: agentUrl, apiKey: plane.key });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "agent", {
      input: { messages: [{ role: "user", content: "What is 6 * 7?" }] },
    });
    await client.runs.join(thread.thread_id, run.run_id);

    const projects = await plane.get("/v2/tracing-projects?name=example-agent");
    const project = projects.resources[0];
    assert.equal(project.deployment_id, example.id);
    const traces = await poll(
      () => plane.get(`/v2/tracing-projects/${project.id}/traces?run_id=${run.run_id}`),
      (page) => page.resources.length === 1 && page.resources[0].status === "success",
    );
    const summary = traces.resources[0];
    assert.equal(summary.thread_id, thread.thread_id);
    assert.equal(summary.graph_id, "agent");
    assert.ok(summary.total_tokens > 0, JSON.stringify(summary));
    assert.ok(summary.latency_ms >= 0);
    const byThread = await plane.get(
      `/v2/tracing-projects/${project.id}/traces?thread_id=${thread.thread_id}`,
    );
    assert.equal(byThread.resources.length, 1);

    // The whole tree has arrived once its run count stops short of nothing: poll until the tool ran.
    const trace = await poll(
      () => plane.get(`/v2/tracing-projects/${project.id}/traces/${summary.trace_id}`),
      (t) =>
        flatten(t.root).some((n: RunNode) => n.run_type === "tool") &&
        flatten(t.root).filter((n: RunNode) => n.run_type === "llm").length >= 2,
    );
    const runs = flatten(trace.root as RunNode);
    const names = runs.map((r) => r.name);
    assert.ok(names.includes("agent"), names.join(","));
    assert.ok(names.includes("tools"), names.join(","));
    const models = runs.filter((r) => r.run_type === "llm");
    assert.ok(models.length >= 2, names.join(","));
    assert.ok(
      models.every((m) => (m.total_tokens ?? 0) > 0),
      JSON.stringify(models.map((m) => m.total_tokens)),
    );
    const tool = runs.find((r) => r.run_type === "tool");
    assert.equal(tool?.name, "calculator");
    const agentNode = trace.root.children.find((c: RunNode) => c.name === "agent") as RunNode;
    assert.ok(
      flatten(agentNode).some((r) => r.run_type === "llm"),
      "the model call is under the agent node",
    );
    const metadata = trace.root.metadata as Record<string, unknown>;
    assert.equal(metadata.run_id, run.run_id);
    assert.equal(metadata.thread_id, thread.thread_id);
    assert.equal(metadata.assistant_id, run.assistant_id);
    assert.equal(metadata.graph_id, "agent");
    assert.equal(metadata.langgraph_api_url, agentUrl, "the stable agent URL, not the loopback port");
    assert.equal(trace.total_tokens, summary.total_tokens);

    // The official langsmith SDK reads the same runs with the workspace's API key.
    const ls = new LangSmith({ apiUrl: `${plane.url}/langsmith-api`, apiKey: plane.key });
    const roots = [];
    for await (const r of ls.listRuns({ projectName: "example-agent", isRoot: true })) roots.push(r);
    assert.ok(roots.some((r) => r.id === summary.trace_id));
    const child = await ls.readRun(tool?.id as string);
    assert.equal(child.trace_id, summary.trace_id);

    const metrics = await (await fetch(`${plane.url}/metrics`)).text();
    assert.match(metrics, /berth_cp_trace_runs_total\{outcome="written"\} [1-9]/);
  });

  it("evaluate() runs an experiment against the deployed agent (SDK at the control plane's root); scores read back", async () => {
    const list = await plane.api("GET", "/v2/deployments?name=example-agent");
    const example = list.json.resources[0];
    await plane.waitFor(example.id, example.latest_revision_id, ["DEPLOYED"]);
    const agentUrl = (await plane.api("GET", `/v2/deployments/${example.id}`)).json.source_config
      .custom_url as string;
    const ls = new LangSmith({ apiUrl: plane.url, apiKey: plane.key, callerOptions: { maxRetries: 0 } });
    const name = `agent-math-${Date.now()}`;
    const dataset = await ls.createDataset(name);
    await ls.createExamples({
      datasetId: dataset.id,
      inputs: [{ question: "What is 6 * 7?" }, { question: "What is 12 / 4?" }],
      outputs: [{ answer: "42" }, { answer: "3" }],
    });
    const agent = new Client({ apiUrl: agentUrl, apiKey: plane.key });
    const target = async (inputs: Record<string, unknown>) => {
      const state = (await agent.runs.wait(null, "agent", {
        input: { messages: [{ role: "user", content: String(inputs.question) }] },
      })) as { messages: Array<{ content: unknown }> };
      return { answer: String(state.messages.at(-1)?.content ?? "") };
    };
    const correct = ({
      outputs,
      referenceOutputs,
    }: {
      outputs?: Record<string, unknown>;
      referenceOutputs?: Record<string, unknown>;
    }) => ({
      key: "correct",
      score: String(outputs?.answer ?? "").includes(String(referenceOutputs?.answer)) ? 1 : 0,
    });
    const results = await evaluate(target, {
      data: name,
      evaluators: [correct],
      client: ls,
      experimentPrefix: "agent-math",
    });
    await ls.awaitPendingTraceBatches();
    assert.equal(results.results.length, 2);
    assert.ok(
      results.results.every((r) => r.evaluationResults.results[0]?.score === 1),
      JSON.stringify(results.results.map((r) => r.run.outputs)),
    );
    const experiments: Array<{ id: string }> = [];
    for await (const p of ls.listProjects({ referenceDatasetId: dataset.id })) experiments.push(p);
    assert.equal(experiments.length, 1);
    const stats = await poll(
      () => ls.readProject({ projectId: experiments[0]?.id ?? "", includeStats: true }),
      (p) => (p.feedback_stats as Record<string, { n: number }> | undefined)?.correct?.n === 2,
    );
    assert.equal((stats.feedback_stats as Record<string, { avg: number }>).correct?.avg, 1);
  });
});
