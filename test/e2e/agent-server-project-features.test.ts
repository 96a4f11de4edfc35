import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { Client } from "@langchain/langgraph-sdk";
import { build } from "esbuild";
import { browserMissing, launchChromium, watchErrors } from "./browser-helpers.js";
import { OWN_DEPS_FIXTURES, useOwnDepsServer } from "./own-deps-helpers.js";

/** A node_version whose major is not the running Node's, so the start-up warning must appear. */
const OTHER_NODE = String(Number(process.versions.node.split(".")[0]) + 1);
/** The server's body limit in these tests: the project's own routes must keep to it too. */
const BODY_LIMIT = 64 * 1024;

type Schema = { properties?: Record<string, Record<string, unknown>>; required?: string[] };

/**
 * The JS server's project features (issue 10) on a project with its own node_modules
 * (test/fixtures/features-project): TypeScript-type and zod schemas, `http.app`, `http.disable_*`,
 * `http.configurable_headers`, `ui`, and start-up warnings.
 */
describe("project features of the official JS server (issue 10)", () => {
  // Parsing TypeScript types takes seconds, many more on a loaded CI machine: no 30 s cut-off here.
  const project = useOwnDepsServer(
    "features",
    { LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS: "300000", BERTH_BODY_LIMIT_BYTES: String(BODY_LIMIT) },
    (dir) => {
      const file = path.join(dir, "graph.json");
      const config = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
      fs.writeFileSync(file, JSON.stringify({ ...config, node_version: OTHER_NODE }));
    },
  );
  const url = (p: string) => `${project.server().url}${p}`;
  const seenHeaders = async (headers: Record<string, string>) => {
    const client = new Client({ apiUrl: project.server().url, defaultHeaders: headers });
    const state = (await client.runs.wait(null, "headers", { input: {} })) as { seen: string };
    return JSON.parse(state.seen) as Record<string, string>;
  };

  it("keeps withLangGraph metadata of the project's own zod copy in /schemas, like the official JS server (defect 1)", async () => {
    const schemas = await project.client().assistants.getSchemas("zod_state");
    const state = schemas.state_schema as Schema;
    assert.deepEqual(state.properties?.messages, { langgraph_type: "messages" });
    assert.equal(state.properties?.topic?.description, "What the conversation is about");
    const output = schemas.output_schema as Schema;
    assert.deepEqual(output.required, ["topic"]);
    assert.deepEqual((schemas.input_schema as Schema).properties?.messages, { langgraph_type: "messages" });
  });

  it("reads Annotation graphs' schemas from their TypeScript types, like the official JS server's parser", async () => {
    const schemas = await project.client().assistants.getSchemas("typed");
    const state = schemas.state_schema as Schema;
    assert.deepEqual(Object.keys(state.properties ?? {}).sort(), ["messages", "score", "topic"]);
    assert.deepEqual(state.properties?.topic, { type: "string" });
    assert.deepEqual(state.properties?.score, { type: "number" });
    assert.equal(state.properties?.messages?.type, "array");
    const config = schemas.config_schema as Schema;
    assert.deepEqual(config.properties?.model, { enum: ["large", "small"], type: "string" });
    assert.deepEqual(schemas.context_schema, schemas.config_schema);
  });

  it("gives subgraphs their own TypeScript-type schemas under /subgraphs, like the official JS server", async () => {
    const subgraphs = (await project.client().assistants.getSubgraphs("typed", { recurse: true })) as Record<
      string,
      { state_schema: Schema }
    >;
    assert.deepEqual(Object.keys(subgraphs), ["child"]);
    assert.deepEqual(subgraphs.child?.state_schema.properties, {
      notes: { type: "array", items: { type: "string" } },
    });
  });

  it("serves the project's http.app routes beside the API, like the official JS server", async () => {
    const hello = await fetch(url("/custom/hello"));
    assert.equal(hello.status, 200);
    assert.deepEqual(await hello.json(), { hello: "world" });
    assert.equal(hello.headers.get("x-custom-app"), "seen");
    const echo = await fetch(url("/custom/echo"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ a: [1, 2] }),
    });
    assert.deepEqual(await echo.json(), { echoed: { a: [1, 2] } });
    assert.equal((await fetch(url("/custom/missing"))).status, 404);
  });

  it("holds the project's http.app routes to the server's body limit, declared or streamed", async () => {
    const big = JSON.stringify({ pad: "x".repeat(BODY_LIMIT) });
    const declared = await fetch(url("/custom/echo"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: big,
    });
    assert.equal(declared.status, 413);
    const bytes = new TextEncoder().encode(big);
    const streamed = await fetch(url("/custom/echo"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 8192) controller.enqueue(bytes.slice(i, i + 8192));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    assert.equal(streamed.status, 413);
  });

  it("runs the http.app middleware on core routes: it can answer, change headers and see bodies, like the official JS server", async () => {
    const blocked = await fetch(url("/assistants/search"), {
      method: "POST",
      headers: { "content-type": "application/json", "x-block": "yes" },
      body: "{}",
    });
    assert.equal(blocked.status, 403);
    assert.deepEqual(await blocked.json(), { blocked: "/assistants/search" });
    const info = await fetch(url("/info"));
    assert.equal(info.status, 200);
    assert.equal(info.headers.get("x-custom-app"), "seen");
    // The middleware read the body; the core route still gets it whole.
    const created = await fetch(url("/threads"), {
      method: "POST",
      headers: { "content-type": "application/json", "x-read-body": "yes" },
      body: JSON.stringify({ metadata: { from: "middleware-test" } }),
    });
    assert.equal(created.status, 200);
    assert.equal(created.headers.get("x-body-keys"), "metadata");
    assert.deepEqual(((await created.json()) as { metadata: object }).metadata, { from: "middleware-test" });
    // A header the middleware rewrote is what the run sees.
    assert.equal((await seenHeaders({ "x-rewrite": "from-client" }))["x-rewrite"], "by-middleware");
  });

  it("copies only the headers http.configurable_headers allows into runs' configurable, as the official configuration reads it", async () => {
    const seen = await seenHeaders({
      "x-keep-a": "1",
      "x-keep-secret": "s",
      "x-other": "o",
      "x-api-key": "k",
    });
    assert.deepEqual(seen, { "x-keep-a": "1" });
  });

  it("turns off core route groups named by http.disable_*", async () => {
    const store = await fetch(url("/store/items"), {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ namespace: ["a"], key: "k", value: {} }),
    });
    assert.equal(store.status, 404);
    assert.equal((await fetch(url("/ok"))).status, 200);
  });

  it("reports unsupported graph.json keys and a different node_version at start-up", () => {
    const output = project.server().output();
    assert.match(output, /key python_version is not supported by Berth/);
    assert.match(output, /key http\.logging_headers is not supported by Berth/);
    assert.match(
      output,
      new RegExp(`node_version is ${OTHER_NODE}, but the server runs on Node ${process.versions.node}`),
    );
    assert.doesNotMatch(output, /key (ui|http\.app|graphs|node_version|\$comment) is not supported/);
  });

  it("bundles graph.json ui components and serves them under /ui/{name}, like the official JS server", async () => {
    const tags = await fetch(url("/ui/typed"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "weather" }),
    });
    assert.equal(tags.status, 200);
    assert.match(tags.headers.get("content-type") ?? "", /^text\/html/);
    const base = `${project.server().url}/ui/typed`;
    assert.equal(
      await tags.text(),
      [
        `<link rel="stylesheet" href="${base}/entrypoint.css" />`,
        `<script src="${base}/entrypoint.js" onload='__LGUI_typed.render("weather", "{{shadowRootId}}")'></script>`,
      ].join("\n"),
    );
    const script = await fetch(`${base}/entrypoint.js`);
    assert.match(script.headers.get("content-type") ?? "", /javascript/);
    const code = await script.text();
    assert.match(code, /var __LGUI_typed = /);
    assert.match(code, /Weather in/);
    // React stays the host page's: the bundle requires it, it does not carry it.
    assert.match(code, /LGUI_REQUIRE/);
    const css = await fetch(`${base}/entrypoint.css`);
    assert.match(await css.text(), /rebeccapurple/);
    const missing = await fetch(url("/ui/nope"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "weather" }),
    });
    assert.equal(missing.status, 404);
  });

  it("renders a graph.json ui component in a browser through the SDK's LoadExternalComponent, like the official JS server", {
    skip: browserMissing() ?? false,
  }, async () => {
    // The page is the project's own (web/host.tsx), bundled with its own React and SDK.
    const bundled = await build({
      absWorkingDir: project.projectDir,
      entryPoints: ["web/host.tsx"],
      bundle: true,
      write: false,
      platform: "browser",
      format: "iife",
      jsx: "automatic",
      define: { "process.env.NODE_ENV": '"production"' },
      logLevel: "silent",
    });
    const code = bundled.outputFiles[0]?.text ?? "";
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const errors = watchErrors(page);
      await page.setContent(
        `<html><body><div id="root"></div><script>window.API_URL = ${JSON.stringify(project.server().url)};</script></body></html>`,
      );
      await page.addScriptTag({ content: code });
      const weather = page.locator(".weather");
      await weather.waitFor({ timeout: 30_000 });
      assert.equal(await weather.textContent(), "Weather in Paris");
      // The bundle's stylesheet reached the component's shadow root.
      assert.equal(
        await weather.evaluate(
          (el) =>
            (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(
              el,
            ).color,
        ),
        "rgb(102, 51, 153)",
      );
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
    }
  });
});

describe("schemas of a CommonJS project's zod graph (issue 10, defect 1)", () => {
  // The own-deps CommonJS fixture with the zod graph of the features fixture added: its graph loads
  // through require(), so LangGraph's metadata sits in the CommonJS build's registry.
  const project = useOwnDepsServer("commonjs", {}, (dir) => {
    fs.copyFileSync(
      path.join(OWN_DEPS_FIXTURES.features, "src/zod-state.ts"),
      path.join(dir, "src/zod-state.ts"),
    );
    const file = path.join(dir, "graph.json");
    const config = JSON.parse(fs.readFileSync(file, "utf8")) as { graphs: Record<string, string> };
    config.graphs.zod_state = "./src/zod-state.ts:graph";
    fs.writeFileSync(file, JSON.stringify(config));
  });

  it("reads withLangGraph metadata from the CommonJS build the graph used, like the official JS server", async () => {
    const schemas = await project.client().assistants.getSchemas("zod_state");
    assert.deepEqual((schemas.state_schema as Schema).properties?.messages, { langgraph_type: "messages" });
  });
});
