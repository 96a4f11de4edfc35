// LangGraph Studio on a deployment (issue 28). Studio runs at https://smith.langchain.com and calls
// the base URL it is given from the browser: CORS preflights from its origin (with Chrome's
// Private Network Access question), then the agent API through the official SDK, with
// `x-auth-scheme: langsmith` and — for LangSmith deployments — a LangSmith key in x-api-key, which
// a Berth control plane cannot check. So "Open in Studio" gives Studio a base URL that carries a
// signed 12-hour grant for one deployment (`/studio/<token>`). Studio itself is not reachable
// from here: these are the requests it makes, replayed against a real deployment.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client } from "@langchain/langgraph-sdk";
import { ControlPlaneUnderTest, eventually } from "./control-plane-helpers.js";

const KEY = "e2e-studio-link-key-0123456789abcdef";
const STUDIO = "https://smith.langchain.com";
/** What Studio adds to its calls of a deployment (and a LangSmith key, foreign to Berth). */
const STUDIO_HEADERS = { "x-auth-scheme": "langsmith", "x-api-key": "lsv2_pt_not-a-berth-key_0123456789" };

interface StudioLink {
  base_path: string;
  base_url: string;
  studio_url: string;
  expires_at: string;
}

describe("Open in Studio: a deployment's agent API for LangGraph Studio", { timeout: 600_000 }, () => {
  const cp = new ControlPlaneUnderTest(KEY, ["--no-example"]);
  let deploymentId: string;
  let link: StudioLink;

  before(async () => {
    await cp.start();
    const deployment = await cp.deploySource("studio-agent");
    deploymentId = deployment.id;
    await cp.waitFor(deploymentId, deployment.latest_revision_id, ["DEPLOYED"], 300_000);
    const minted = await cp.api("POST", `/v2/deployments/${deploymentId}/studio-link`);
    assert.equal(minted.status, 200, JSON.stringify(minted.json));
    link = minted.json;
  });
  after(async () => {
    await cp.stop();
    cp.cleanup();
  });

  it("mints a Studio URL whose baseUrl is the control plane's /studio/<token>, expiring in 12 hours", () => {
    assert.match(link.base_path, /^\/studio\/s1\.[\w-]+\.[\w-]+$/);
    assert.equal(link.base_url, `${cp.url}${link.base_path}`);
    const studio = new URL(link.studio_url);
    assert.equal(`${studio.origin}${studio.pathname}`, `${STUDIO}/studio/`);
    assert.equal(studio.searchParams.get("baseUrl"), link.base_url);
    const hours = (Date.parse(link.expires_at) - Date.now()) / 3_600_000;
    assert.ok(hours > 11.9 && hours <= 12.01, `${hours} h`);
  });

  it("answers Studio's preflights from its origin, Private Network Access included, without credentials", async () => {
    for (const [method, path] of [
      ["POST", "/assistants/search"],
      ["GET", "/info"],
      ["POST", "/threads/00000000-0000-4000-8000-000000000000/runs/stream"],
    ] as const) {
      const res = await fetch(`${link.base_url}${path}`, {
        method: "OPTIONS",
        headers: {
          Origin: STUDIO,
          "Access-Control-Request-Method": method,
          "Access-Control-Request-Headers": "content-type,x-api-key,x-auth-scheme",
          "Access-Control-Request-Private-Network": "true",
        },
      });
      assert.equal(res.status, 204, path);
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
      assert.match(res.headers.get("access-control-allow-methods") ?? "", new RegExp(method));
      assert.match(res.headers.get("access-control-allow-headers") ?? "", /x-auth-scheme/);
      assert.equal(res.headers.get("access-control-allow-private-network"), "true");
    }
  });

  it("serves Studio's calls through the official SDK: info, assistants, graph, schemas, a streamed run", async () => {
    const info = await fetch(`${link.base_url}/info`, { headers: { Origin: STUDIO, ...STUDIO_HEADERS } });
    assert.equal(info.status, 200);
    assert.equal(info.headers.get("access-control-allow-origin"), "*");
    const studio = new Client({
      apiUrl: link.base_url,
      defaultHeaders: { Origin: STUDIO, ...STUDIO_HEADERS },
    });
    const [assistant] = await studio.assistants.search({ graphId: "echo" });
    assert.ok(assistant, "the deployment's echo assistant");
    const graph = await studio.assistants.getGraph(assistant.assistant_id, { xray: true });
    assert.ok(graph.nodes.some((n) => n.id === "answer"));
    const schemas = await studio.assistants.getSchemas(assistant.assistant_id);
    assert.ok(schemas.state_schema);
    const thread = await studio.threads.create();
    const events: string[] = [];
    let last: unknown;
    for await (const chunk of studio.runs.stream(thread.thread_id, assistant.assistant_id, {
      input: { text: "Studio" },
      streamMode: ["values", "updates"],
    })) {
      events.push(chunk.event);
      if (chunk.event === "values") last = chunk.data;
    }
    assert.ok(events.includes("metadata") && events.includes("updates"), events.join(","));
    assert.equal((last as { reply?: string }).reply, "hello, Studio");
    // The same thread through the key-authenticated URL: one deployment, one agent server.
    const state = await cp.api("GET", `/agents/${deploymentId}/threads/${thread.thread_id}/state`);
    assert.equal(state.json.values.reply, "hello, Studio");
  });

  it("refuses a tampered or foreign token (401, readable by Studio) and mints nothing without a key", async () => {
    const [version, payload, signature] = link.base_path.slice("/studio/".length).split(".");
    // The same grant with a later expiry, under the old signature.
    const bytes = Buffer.from(payload ?? "", "base64url");
    bytes.writeUInt32BE(4102444800, 32);
    const forged = bytes.toString("base64url");
    for (const token of [`${version}.${forged}.${signature}`, "s1.e30.AAAA", "nonsense"]) {
      const res = await fetch(`${cp.url}/studio/${token}/assistants/search`, {
        method: "POST",
        headers: { Origin: STUDIO, "content-type": "application/json" },
        body: "{}",
      });
      assert.equal(res.status, 401, token);
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
      assert.match(
        ((await res.json()) as { detail: string }).detail,
        /Studio link is not valid or has expired/,
      );
    }
    const anonymous = await fetch(`${cp.url}/v2/deployments/${deploymentId}/studio-link`, { method: "POST" });
    assert.equal(anonymous.status, 401);
    const unknown = await cp.api("POST", "/v2/deployments/00000000-0000-4000-8000-000000000000/studio-link");
    assert.equal(unknown.status, 404);
  });

  it("a deleted deployment's link stops working", async () => {
    const other = await cp.deploySource("studio-gone");
    const minted = await cp.api("POST", `/v2/deployments/${other.id}/studio-link`);
    assert.equal(minted.status, 200);
    const deleted = await cp.api("DELETE", `/v2/deployments/${other.id}`);
    assert.equal(deleted.status, 204);
    // Its agent server stops in the background; then the deployment is gone for the link too.
    await eventually(
      async () => {
        const res = await fetch(`${minted.json.base_url}/assistants/search`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{}",
        });
        return res.status === 404;
      },
      "the link of the deleted deployment answers 404",
      60_000,
    );
  });
});
