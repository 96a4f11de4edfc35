// Request limits on both services (issue 11 items 6 and 10): JSON nested deeper than the bound is
// a 4xx at parse time; a stalled request body is cut off at the request timeout; connections
// beyond the cap are refused while the open ones keep working.
import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { makeTempDir, type SpawnedServer, spawnBerth } from "@berth-platform/testkit";
import { FIXTURE_CONFIG } from "./helpers.js";

const KEY = "http-limits-key-0123456789";
const LIMIT_ENV = { BERTH_REQUEST_TIMEOUT_SECS: "2", BERTH_MAX_CONNECTIONS: "8" };
const temp = makeTempDir("berth-http-limits-");
let agent: SpawnedServer;
let plane: SpawnedServer;

/** `{"a":{"a":…}}` nested `depth` levels. */
function deep(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

/** Sends headers and part of a body, then nothing: resolves with what the server said and when. */
function stall(url: string, path: string): Promise<{ ms: number; answer: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const started = Date.now();
    let answer = "";
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nX-Api-Key: ${KEY}\r\n\r\n{"metadata"`,
      );
    });
    socket.on("data", (chunk) => {
      answer += chunk.toString();
    });
    socket.on("close", () => resolve({ ms: Date.now() - started, answer }));
    socket.on("error", () => {});
    socket.setTimeout(30_000, () => socket.destroy());
  });
}

/** Opens `n` idle connections; resolves once each is connected (or refused). */
async function openIdle(url: string, n: number): Promise<net.Socket[]> {
  const { hostname, port } = new URL(url);
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<net.Socket>((resolve) => {
          const socket = net.connect(Number(port), hostname, () => resolve(socket));
          socket.on("error", () => resolve(socket));
        }),
    ),
  );
}

/** Whether the server closes a fresh connection without answering a request on it. */
function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let answered = false;
    const socket = net.connect(Number(port), hostname, () =>
      socket.write("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n"),
    );
    socket.on("data", () => {
      answered = true;
      socket.destroy();
    });
    socket.on("close", () => resolve(!answered));
    socket.on("error", () => {});
  });
}

describe("HTTP limits on both services (issue 11 items 6, 10)", () => {
  before(async () => {
    agent = await spawnBerth(
      ["dev", "--config", FIXTURE_CONFIG, "--port", "0", "--data-dir", `${temp.dir}/agent`],
      { env: LIMIT_ENV },
    );
    plane = await spawnBerth(
      [
        "up",
        "--port",
        "0",
        "--data-dir",
        `${temp.dir}/plane`,
        "--api-key",
        KEY,
        "--no-example",
        "--no-runtime",
      ],
      { env: LIMIT_ENV },
    );
  });
  after(async () => {
    await agent?.stop();
    await plane?.stop();
    temp.cleanup();
  });

  it("JSON nested 5,000 deep is a 4xx on both services, never a 500", async () => {
    for (const [url, path, headers] of [
      [agent.url, "/threads", {}],
      [agent.url, "/store/items", {}],
      [agent.url, "/assistants/search", {}],
      [plane.url, "/v2/deployments", { "x-api-key": KEY }],
    ] as const) {
      for (const depth of [5_000, 100_000]) {
        const res = await fetch(`${url}${path}`, {
          method: path === "/store/items" ? "PUT" : "POST",
          headers: { "content-type": "application/json", ...headers },
          body:
            path === "/store/items"
              ? `{"namespace":["a"],"key":"k","value":${deep(depth)}}`
              : `{"metadata":${deep(depth)}}`,
        });
        assert.ok(res.status >= 400 && res.status < 500, `${path} at depth ${depth}: ${res.status}`);
        assert.match(((await res.json()) as { detail: string }).detail, /deeper/);
      }
    }
    // Reasonable nesting still passes.
    const ok = await fetch(`${agent.url}/threads`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"metadata":${deep(50)}}`,
    });
    assert.equal(ok.status, 200);
  });

  it("a stalled request body is cut off at the request timeout on both services", async () => {
    const results = await Promise.all([stall(agent.url, "/threads"), stall(plane.url, "/v2/deployments")]);
    for (const { ms, answer } of results) {
      assert.ok(ms < 2_000 + 3_000, `closed after ${ms} ms`);
      assert.ok(ms >= 1_500, `not before the timeout (${ms} ms)`);
      assert.match(answer, /^HTTP\/1\.1 408/);
    }
  });

  it("connections beyond the cap are refused; the open ones still work", async () => {
    for (const url of [agent.url, plane.url]) {
      const idle = await openIdle(url, 8);
      try {
        // The server counts a connection once it has accepted it: poll briefly.
        let full = false;
        for (let i = 0; i < 40 && !full; i += 1) {
          await new Promise((r) => setTimeout(r, 50));
          full = await refused(url);
        }
        assert.ok(full, `the 9th connection to ${url} is refused`);
        const [first] = idle;
        const reply = await new Promise<string>((resolve) => {
          first?.once("data", (chunk) => resolve(chunk.toString()));
          first?.write("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n");
        });
        assert.match(reply, /^HTTP\/1\.1 200/);
      } finally {
        for (const socket of idle) socket.destroy();
      }
      // The server counts a connection gone once it sees the close: poll briefly.
      let accepted = false;
      for (let i = 0; i < 40 && !accepted; i += 1) {
        await new Promise((r) => setTimeout(r, 50));
        accepted = !(await refused(url));
      }
      assert.ok(accepted, "once they close, connections are accepted again");
    }
  });
});
