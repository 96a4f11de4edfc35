// The `/agents/{deployment_id}` proxy forwards the request target as the client sent it (issue 27):
// `%3F` stays `%3F` (not a query), `%2F` stays `%2F` (not a path separator), an encoded CR/LF
// stays encoded. The agent server is stood in for by a plain HTTP server that records the target
// it received (the real one would only show its routing of it); the proxy, auth and gateway are
// the control plane's own.

import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import Fastify, { type FastifyInstance } from "fastify";
import { registerErrorHandling } from "../src/http/errors.js";
import { agentProxyRoutes } from "../src/http/routes/agent-proxy.js";
import type { DeploymentRuntime, RunningAgent } from "../src/runtime/types.js";
import { AgentGateway } from "../src/services/agent-gateway.js";
import { AuthService } from "../src/services/auth.js";
import { StudioLinks } from "../src/services/studio-links.js";
import { ADMIN_KEY, externalBody, usePlane } from "./helpers.js";

const plane = usePlane();

/** Sends a request with its target exactly as given (no client-side URL normalising). */
function send(
  server: FastifyInstance,
  target: string,
  headers: Record<string, string>,
): Promise<{ statusCode: number; body: string }> {
  const { port } = server.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: target, method: "GET", headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ statusCode: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("agent proxy: the path as received", () => {
  const received: string[] = [];
  let upstream: http.Server;
  let proxy: FastifyInstance;
  let deploymentId = "";

  before(async () => {
    upstream = http.createServer((req, res) => {
      received.push(req.url ?? "");
      res.end("{}");
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const { port } = upstream.address() as AddressInfo;
    const created = await plane().call({
      method: "POST",
      url: "/v2/deployments",
      payload: externalBody("proxied"),
    });
    assert.equal(created.statusCode, 201, created.body);
    deploymentId = (created.json() as { id: string }).id;
    // The runtime's only part the gateway uses: which upstream serves the deployment.
    const runtime = {
      serving: async (id: string) =>
        id === deploymentId
          ? ({
              upstream: `http://127.0.0.1:${port}`,
              token: null,
              release() {},
              responded() {},
            } as unknown as RunningAgent)
          : undefined,
    } as unknown as DeploymentRuntime;
    const storage = plane().plane.storage;
    proxy = Fastify();
    registerErrorHandling(proxy);
    await agentProxyRoutes(
      proxy,
      new AgentGateway(storage.deployments, runtime),
      new AuthService(storage.tenants),
      new StudioLinks(Buffer.alloc(32)),
    );
    await proxy.listen({ port: 0, host: "127.0.0.1" });
  });
  after(async () => {
    await proxy?.close();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  it("forwards %3F, %2F, %0D%0A and the query exactly as sent, to the same agent", async () => {
    const cases: Array<[string, string]> = [
      ["/threads/abc%3Fx=1/state", "/threads/abc%3Fx=1/state"],
      ["/threads%2Fabc/runs", "/threads%2Fabc/runs"],
      ["/store/items%0D%0AX-Injected:%201", "/store/items%0D%0AX-Injected:%201"],
      ["/threads/abc?limit=1&q=%3F%26", "/threads/abc?limit=1&q=%3F%26"],
      ["/ok", "/ok"],
      ["", "/"],
      ["?x=%2F", "/?x=%2F"],
    ];
    for (const [sent, expected] of cases) {
      received.length = 0;
      const res = await send(proxy, `/agents/${deploymentId}${sent}`, { "x-api-key": ADMIN_KEY });
      assert.equal(res.statusCode, 200, `${sent}: ${res.body}`);
      assert.deepEqual(received, [expected], sent);
    }
  });

  it("refuses dot segments, plain or encoded (400, nothing forwarded)", async () => {
    received.length = 0;
    for (const sent of ["/threads/a%2F..%2F..%2Fok", "/threads/%2e%2e/%2e%2e/ok", "/a/../../ok"]) {
      const res = await send(proxy, `/agents/${deploymentId}${sent}`, { "x-api-key": ADMIN_KEY });
      assert.equal(res.statusCode, 400, `${sent}: ${res.body}`);
      assert.equal(typeof (JSON.parse(res.body) as { detail: unknown }).detail, "string");
    }
    assert.deepEqual(received, []);
  });

  it("still needs the workspace's key and a deployment of its workspace (404 for a foreign id)", async () => {
    received.length = 0;
    const foreign = await plane().addTenant();
    const res = await send(proxy, `/agents/${deploymentId}/threads%2Fx`, { "x-api-key": foreign.key });
    assert.equal(res.statusCode, 404, res.body);
    const anonymous = await send(proxy, `/agents/${deploymentId}/ok`, {});
    assert.equal(anonymous.statusCode, 401);
    assert.deepEqual(received, []);
  });
});
