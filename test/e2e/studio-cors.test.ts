// LangGraph Studio (https://smith.langchain.com) calls agent servers from the browser: CORS on
// `berth dev` (default and `http.cors`), on the control plane's `/agents/<id>` proxy, and the link.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { makeTempDir, repoRoot, type SpawnedServer, spawnBerth } from "@berth-platform/testkit";
import { FIXTURE_CONFIG } from "./helpers.js";

const STUDIO = "https://smith.langchain.com";
const EVIL = "https://evil.example";
const CORS_PROJECT = path.join(repoRoot, "test/fixtures/cors-project/graph.json");

function preflight(url: string, origin: string, method = "POST", headers = "content-type,x-api-key") {
  return fetch(url, {
    method: "OPTIONS",
    headers: {
      Origin: origin,
      "Access-Control-Request-Method": method,
      "Access-Control-Request-Headers": headers,
    },
  });
}

/** Starts `berth dev` on a project for the enclosing describe block. */
function useDev(config: string): () => SpawnedServer {
  const temp = makeTempDir();
  let server: SpawnedServer | undefined;
  before(async () => {
    server = await spawnBerth(["dev", "--config", config, "--port", "0", "--data-dir", temp.dir]);
  });
  after(async () => {
    await server?.stop();
    temp.cleanup();
  });
  return () => {
    if (!server) throw new Error("server not started");
    return server;
  };
}

describe("berth dev without http.cors", () => {
  const server = useDev(FIXTURE_CONFIG);

  test("prints the Studio UI link with its base URL, as the official langgraphjs dev does", () => {
    const { url } = server();
    assert.ok(
      server().output().includes(`Studio UI: https://smith.langchain.com/studio?baseUrl=${url}`),
      server().output(),
    );
  });

  test("answers Studio's preflight for every origin, as the official server's default does", async () => {
    const res = await preflight(`${server().url}/assistants/search`, STUDIO);
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const methods = res.headers.get("access-control-allow-methods") ?? "";
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) assert.match(methods, new RegExp(method));
    assert.equal(res.headers.get("access-control-allow-headers"), "content-type,x-api-key");
    assert.equal(res.headers.get("access-control-allow-credentials"), null);
  });

  test("real responses, streams included, carry the CORS headers Studio needs to read them", async () => {
    const search = await fetch(`${server().url}/assistants/search`, {
      method: "POST",
      headers: { Origin: STUDIO, "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(search.status, 200);
    assert.equal(search.headers.get("access-control-allow-origin"), "*");
    assert.match(search.headers.get("access-control-expose-headers") ?? "", /content-location/);
    assert.match(search.headers.get("access-control-expose-headers") ?? "", /x-pagination-total/);

    const stream = await fetch(`${server().url}/runs/stream`, {
      method: "POST",
      headers: { Origin: STUDIO, "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "echo", input: { messages: [{ role: "user", content: "hi" }] } }),
    });
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get("access-control-allow-origin"), "*");
    assert.match(stream.headers.get("access-control-expose-headers") ?? "", /content-location/);
    await stream.text();
  });
});

describe("berth dev with a restrictive http.cors (fields as the official JS server reads them)", () => {
  const server = useDev(CORS_PROJECT);

  test("an allowed origin gets its origin, methods, headers and max age back", async () => {
    const res = await preflight(`${server().url}/threads`, STUDIO);
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("access-control-allow-origin"), STUDIO);
    assert.equal(res.headers.get("access-control-allow-methods"), "GET, POST");
    assert.equal(res.headers.get("access-control-allow-headers"), "content-type, x-api-key");
    assert.equal(res.headers.get("access-control-max-age"), "600");
  });

  test("a disallowed origin gets no allow-origin header, on preflight or real request", async () => {
    const pre = await preflight(`${server().url}/threads`, EVIL);
    assert.equal(pre.headers.get("access-control-allow-origin"), null);
    const real = await fetch(`${server().url}/ok`, { headers: { Origin: EVIL } });
    assert.equal(real.status, 200);
    assert.equal(real.headers.get("access-control-allow-origin"), null);
  });

  test("configured expose_headers keep content-location and x-pagination-total, as the official server adds them", async () => {
    const res = await fetch(`${server().url}/ok`, { headers: { Origin: STUDIO } });
    assert.equal(res.headers.get("access-control-allow-origin"), STUDIO);
    const exposed = (res.headers.get("access-control-expose-headers") ?? "").split(/,\s*/);
    assert.deepEqual(exposed.sort(), ["content-location", "x-pagination-total", "x-request-id"]);
  });
});

test("an http.cors that cannot be used stops berth dev with the field in the reason", async () => {
  const temp = makeTempDir();
  try {
    const config = path.join(temp.dir, "graph.json");
    const echo = path.relative(temp.dir, path.join(repoRoot, "examples/react-agent/src/echo.ts"));
    fs.writeFileSync(
      config,
      JSON.stringify({ graphs: { echo: `./${echo}:graph` }, http: { cors: { allow_origins: "*" } } }),
    );
    await assert.rejects(
      spawnBerth(["dev", "--config", config, "--port", "0", "--data-dir", path.join(temp.dir, "data")]),
      /"http\.cors\.allow_origins" must be an array of strings/,
    );
  } finally {
    temp.cleanup();
  }
});

describe("berth up: the /agents/<id> proxy for browsers", () => {
  const KEY = "studio-cors-test-key-0001";
  const temp = makeTempDir("berth-up-");
  let server: SpawnedServer | undefined;
  const url = () => {
    if (!server) throw new Error("berth up is not running");
    return server.url;
  };
  before(async () => {
    server = await spawnBerth([
      "up",
      ...["--port", "0", "--data-dir", path.join(temp.dir, "data"), "--api-key", KEY, "--no-runtime"],
    ]);
  });
  after(async () => {
    await server?.stop();
    temp.cleanup();
  });
  const agentUrl = () => `${url()}/agents/00000000-0000-4000-8000-000000000000/threads/search`;

  test("a preflight without an API key is answered", async () => {
    const res = await preflight(agentUrl(), STUDIO);
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.match(res.headers.get("access-control-allow-methods") ?? "", /POST/);
    assert.equal(res.headers.get("access-control-allow-headers"), "content-type,x-api-key");
  });

  test("a real request without an API key is 401, readable by the browser", async () => {
    const res = await fetch(agentUrl(), {
      method: "POST",
      headers: { Origin: STUDIO, "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.ok(typeof ((await res.json()) as { detail?: unknown }).detail === "string");
  });

  test("a real request with the key reaches the deployment lookup (404 for an unknown one), with CORS", async () => {
    const res = await fetch(agentUrl(), {
      method: "POST",
      headers: { Origin: STUDIO, "content-type": "application/json", "x-api-key": KEY },
      body: "{}",
    });
    assert.equal(res.status, 404);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
  });

  test("the Deployment API itself is unchanged: no CORS preflight route outside /agents", async () => {
    const res = await preflight(`${url()}/v2/deployments`, STUDIO);
    assert.equal(res.headers.get("access-control-allow-origin"), null);
  });
});
