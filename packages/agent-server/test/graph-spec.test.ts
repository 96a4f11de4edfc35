import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GraphConfigError, parseGraphConfig } from "../src/graphs/spec.js";

const CONFIG = "/project/graph.json";

describe("parseGraphConfig", () => {
  it("resolves paths against the config's directory and splits the export name", () => {
    const parsed = parseGraphConfig(
      {
        graphs: {
          agent: "./src/agent.ts:graph",
          plain: "./src/plain.js",
          described: { path: "./src/d.mts:make", description: "a factory" },
        },
        env: { KEY: "value" },
        dependencies: ["."],
      },
      CONFIG,
    );
    assert.deepEqual(parsed.graphs, [
      {
        graphId: "agent",
        modulePath: "/project/src/agent.ts",
        exportName: "graph",
        description: null,
        declared: { configPath: CONFIG, entry: "./src/agent.ts:graph" },
      },
      {
        graphId: "plain",
        modulePath: "/project/src/plain.js",
        exportName: "default",
        description: null,
        declared: { configPath: CONFIG, entry: "./src/plain.js" },
      },
      {
        graphId: "described",
        modulePath: "/project/src/d.mts",
        exportName: "make",
        description: "a factory",
        declared: { configPath: CONFIG, entry: "./src/d.mts:make" },
      },
    ]);
    assert.deepEqual(parsed.env, { kind: "inline", values: { KEY: "value" } });
    assert.deepEqual(parsed.dependencies, ["."]);
  });

  it("takes an env file path", () => {
    const parsed = parseGraphConfig({ graphs: { a: "./a.ts:g" }, env: ".env" }, CONFIG);
    assert.deepEqual(parsed.env, { kind: "file", path: "/project/.env" });
  });

  it("explains what is wrong", () => {
    const cases: Array<[unknown, RegExp]> = [
      [[], /expected a JSON object/],
      [{}, /"graphs" must be an object/],
      [{ graphs: {} }, /names no graph/],
      [{ graphs: { a: 5 } }, /"graphs.a" must be/],
      [{ graphs: { a: "./a.py:graph" } }, /not a JavaScript or TypeScript module/],
      [{ graphs: { a: "./a.ts:g" }, env: { K: 1 } }, /"env.K" must be a string/],
      [{ graphs: { a: "./a.ts:g" }, dependencies: "." }, /"dependencies" must be an array/],
    ];
    for (const [json, message] of cases) {
      assert.throws(
        () => parseGraphConfig(json, CONFIG),
        (error: unknown) => {
          assert.ok(error instanceof GraphConfigError);
          assert.match(error.message, message);
          assert.match(error.message, /\/project\/graph\.json/);
          return true;
        },
      );
    }
  });
});
