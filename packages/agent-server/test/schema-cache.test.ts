// The schema cache of issue 29: results of the TypeScript-type parse, failures with their reason,
// kept on disk by the project's fingerprint; timeouts only in memory. The parser is a counting
// stand-in here (the real one takes seconds); test/e2e/agent-server-official-parity.test.ts runs
// the official parser through the server.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { makeTempDir } from "@berth-platform/testkit";
import { DiskSchemaCache, projectFingerprint } from "../src/graphs/schema-cache.js";
import { type GraphSchema, GraphSchemaReader, type StaticSchemaExtractor } from "../src/graphs/schemas.js";
import type { GraphSpec } from "../src/graphs/spec.js";

const temp = makeTempDir("berth-schema-cache-");
after(() => temp.cleanup());

const schema: GraphSchema = { state: { type: "object" }, input: {}, output: {}, config: { type: "object" } };
const spec = (graphId: string): GraphSpec => ({
  graphId,
  modulePath: path.join(temp.dir, "project", `${graphId}.ts`),
  exportName: "graph",
  description: null,
  declared: { configPath: path.join(temp.dir, "project", "langgraph.json"), entry: `./${graphId}.ts:graph` },
});

/** A parser stand-in: answers per graph id (an Error is thrown), and counts what it was asked. */
function parser(answers: Record<string, Error | "ok">) {
  const calls: string[][] = [];
  const extract: StaticSchemaExtractor = async (specs) => {
    calls.push(specs.map((s) => s.graphId));
    const out: Record<string, Record<string, GraphSchema>> = {};
    for (const s of specs) {
      const answer = answers[s.graphId];
      if (answer instanceof Error) throw answer;
      out[s.graphId] = { graph: schema };
    }
    return out;
  };
  return { extract, calls };
}

const isTimeout = (error: unknown) => error instanceof Error && /timed out/.test(error.message);

describe("schema cache", () => {
  const project = path.join(temp.dir, "project");
  fs.mkdirSync(project, { recursive: true });
  fs.writeFileSync(path.join(project, "a.ts"), "export const graph = 1;\n");
  const reader = (extract: StaticSchemaExtractor, failures: string[] = []) =>
    new GraphSchemaReader(
      extract,
      new DiskSchemaCache(path.join(temp.dir, "data"), undefined, project, "parser@1"),
      isTimeout,
      (graphId, reason) => failures.push(`${graphId}: ${reason}`),
    );

  it("parses the graphs in one batch, falls back to one by one when the batch fails, and keeps failures with their reason", async () => {
    const first = parser({ ok: "ok", broken: new Error("types do not compile") });
    const failures: string[] = [];
    await reader(first.extract, failures).warm([spec("ok"), spec("broken")], () => undefined);
    assert.deepEqual(first.calls, [["ok", "broken"], ["ok"], ["broken"]]);
    assert.deepEqual(failures, ["broken: types do not compile"]);
    // Another process on unchanged files: nothing is parsed again, the failure included.
    const second = parser({ ok: "ok", broken: "ok" });
    const again = reader(second.extract);
    await again.warm([spec("ok"), spec("broken")], () => undefined);
    assert.deepEqual(second.calls, []);
    const schemas = await again.schemas(spec("ok"), { channels: {} });
    assert.deepEqual(schemas.config_schema, { type: "object" });
  });

  it("a timeout is not kept on disk: the next process parses again", async () => {
    const slow = parser({ slow: new Error("Schema extract worker timed out") });
    await reader(slow.extract).warm([spec("slow")], () => undefined);
    const next = parser({ slow: "ok" });
    await reader(next.extract).warm([spec("slow")], () => undefined);
    assert.deepEqual(next.calls, [["slow"]]);
  });

  it("a changed file changes the key", async () => {
    const before = projectFingerprint(project);
    fs.writeFileSync(path.join(project, "a.ts"), "export const graph = 2;\n");
    assert.notEqual(projectFingerprint(project), before);
    const after = parser({ ok: "ok" });
    await reader(after.extract).warm([spec("ok")], () => undefined);
    assert.deepEqual(after.calls, [["ok"]]);
  });

  it("a build's cache is found after its directory moves (the builder renames it into place)", async () => {
    const built = path.join(temp.dir, "work", "src");
    fs.mkdirSync(built, { recursive: true });
    fs.writeFileSync(path.join(built, "b.ts"), "export const graph = 3;\n");
    const at = (dir: string) => ({ ...spec("b"), modulePath: path.join(dir, "b.ts") });
    const seed = (dir: string) => path.join(dir, ".berth", "schemas");
    const build = parser({ b: "ok" });
    await new GraphSchemaReader(
      build.extract,
      new DiskSchemaCache(seed(built), undefined, built, "parser@1"),
      isTimeout,
    ).warm([at(built)], () => undefined);
    const moved = path.join(temp.dir, "builds", "key", "src");
    fs.mkdirSync(path.dirname(moved), { recursive: true });
    fs.renameSync(built, moved);
    const serve = parser({ b: "ok" });
    await new GraphSchemaReader(
      serve.extract,
      new DiskSchemaCache(path.join(temp.dir, "served"), seed(moved), moved, "parser@1"),
      isTimeout,
    ).warm([at(moved)], () => undefined);
    assert.deepEqual(build.calls, [["b"]]);
    assert.deepEqual(serve.calls, []);
  });
});
