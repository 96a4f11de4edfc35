import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseGraphConfig, projectWarnings } from "../src/graphs/spec.js";
import { headerIncluded, parseProjectHttp } from "../src/http/project-http.js";

const fail = (reason: string): never => {
  throw new Error(reason);
};

describe("graph.json http block (http.app, disable_*, configurable_headers)", () => {
  it("reads http.app as module and export, and disable_* flags", () => {
    const http = parseProjectHttp(
      { app: "./src/app.ts:app", disable_store: true, disable_meta: true },
      "/p",
      fail,
    );
    assert.deepEqual(http.app, { modulePath: "/p/src/app.ts", exportName: "app" });
    assert.equal(http.disabled.store, true);
    assert.equal(http.disabled.meta, true);
    assert.equal(http.disabled.runs, false);
    assert.deepEqual(parseProjectHttp({ app: "./app.mjs" }, "/p", fail).app, {
      modulePath: "/p/app.mjs",
      exportName: "default",
    });
  });

  it("refuses ill-typed values", () => {
    assert.throws(() => parseProjectHttp({ disable_runs: "yes" }, "/p", fail), /disable_runs/);
    assert.throws(
      () => parseProjectHttp({ configurable_headers: { include: "x-*" } }, "/p", fail),
      /include/,
    );
  });

  it("matches header patterns literally but for *, exclusions first, credentials never", () => {
    const { headers } = parseProjectHttp(
      { configurable_headers: { includes: ["X-Org-*", "a.b"], excludes: ["x-org-secret"] } },
      "/p",
      fail,
    );
    assert.equal(headerIncluded(headers, "x-org-id"), true);
    assert.equal(headerIncluded(headers, "X-ORG-SECRET"), false);
    assert.equal(headerIncluded(headers, "a.b"), true);
    assert.equal(headerIncluded(headers, "axb"), false, "a dot is a dot, not a regex wildcard");
    assert.equal(headerIncluded(headers, "x-other"), false);
    const all = parseProjectHttp({ configurable_headers: { include: ["*"] } }, "/p", fail).headers;
    assert.equal(headerIncluded(all, "authorization"), true);
    assert.equal(headerIncluded(all, "x-api-key"), false);
    assert.equal(headerIncluded(all, "x-berth-agent-token"), false);
  });

  it("keeps the official default without configurable_headers: x-* and user-agent", () => {
    assert.equal(headerIncluded(null, "x-anything"), true);
    assert.equal(headerIncluded(null, "user-agent"), true);
    assert.equal(headerIncluded(null, "authorization"), false);
    assert.equal(headerIncluded(null, "x-tenant-id"), false);
  });
});

describe("projectWarnings", () => {
  it("names every key Berth does not act on, and a node_version of another major", () => {
    const project = parseGraphConfig(
      {
        $schema: "https://example.invalid/schema.json",
        graphs: { a: "./a.ts:graph" },
        node_version: "18",
        store: { ttl: {} },
        http: { app: "./app.ts:app", middleware_order: "auth_first", disable_mcp: false },
        auth: { path: "./auth.ts:auth", disable_studio_auth: true },
        ui: { a: "./ui.tsx" },
        ui_config: { shared: ["x"], other: 1 },
      },
      "/p/graph.json",
    );
    const warnings = projectWarnings(project, "20.20.2").join("\n");
    for (const key of [
      "store",
      "http.middleware_order",
      "http.disable_mcp",
      "auth.disable_studio_auth",
      "ui_config.other",
    ]) {
      assert.match(warnings, new RegExp(`key ${key.replace(".", "\\.")}[ (]`));
    }
    assert.match(warnings, /node_version is 18, but the server runs on Node 20\.20\.2/);
    assert.doesNotMatch(warnings, /key (\$schema|graphs|ui|http\.app|auth\.path|node_version) /);
    assert.deepEqual(
      projectWarnings(
        parseGraphConfig({ graphs: { a: "./a.ts" }, node_version: "20" }, "/p/g.json"),
        "20.1.0",
      ),
      [],
    );
  });
});
