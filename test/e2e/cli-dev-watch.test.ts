// `berth dev` watches the project by default (issue 13, like the official dev server): a changed
// graph file restarts the server on the same URL with the new code; its data directory is added to
// the project's .gitignore; stopping the supervisor stops its server.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { makeTempDir, repoRoot, spawnBerth } from "@berth-platform/testkit";

function graphSource(answer: string): string {
  return `import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
const State = Annotation.Root({ text: Annotation<string>(), reply: Annotation<string>() });
export const graph = new StateGraph(State)
  .addNode("answer", async () => ({ reply: ${JSON.stringify(answer)} }))
  .addEdge(START, "answer")
  .addEdge("answer", END)
  .compile();
`;
}

async function reply(url: string): Promise<string | undefined> {
  const res = await fetch(`${url}/runs/wait`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ assistant_id: "echo", input: { text: "hi" } }),
  }).catch(() => undefined);
  if (!res?.ok) return undefined;
  return ((await res.json()) as { reply?: string }).reply;
}

describe("berth dev --watch (the default)", () => {
  const temp = makeTempDir();
  after(() => temp.cleanup());

  it("restarts on a changed graph file, on the same URL, with the new code; .gitignore gets the data dir", async () => {
    const project = path.join(temp.dir, "project");
    fs.mkdirSync(path.join(project, "src"), { recursive: true });
    // The project uses Berth's installed LangGraph (linked, as the runtime tests' installs do).
    fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(project, "node_modules"));
    fs.writeFileSync(
      path.join(project, "graph.json"),
      JSON.stringify({ graphs: { echo: "./src/echo.ts:graph" } }),
    );
    fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ type: "module", private: true }));
    fs.writeFileSync(path.join(project, "src/echo.ts"), graphSource("first"));
    fs.writeFileSync(path.join(project, ".gitignore"), "node_modules\n");
    const server = await spawnBerth([
      "dev",
      "--watch",
      "--config",
      path.join(project, "graph.json"),
      "--port",
      "0",
    ]);
    try {
      assert.equal(await reply(server.url), "first");
      assert.match(fs.readFileSync(path.join(project, ".gitignore"), "utf8"), /^\/\.berth\/$/m);
      fs.writeFileSync(path.join(project, "src/echo.ts"), graphSource("second"));
      let answer: string | undefined;
      for (let i = 0; i < 150 && answer !== "second"; i += 1) {
        await new Promise((r) => setTimeout(r, 100));
        answer = await reply(server.url);
      }
      assert.equal(answer, "second", server.output());
      assert.match(server.output(), /src\/echo\.ts changed: restarting the agent server/);
      // Writing Berth's own state (threads, checkpoints) does not restart it.
      const restarts = server.output().match(/restarting the agent server/g)?.length;
      await reply(server.url);
      await new Promise((r) => setTimeout(r, 800));
      assert.equal(server.output().match(/restarting the agent server/g)?.length, restarts);
    } finally {
      await server.stop();
    }
    // The supervised server is gone with its supervisor: the data directory is free again.
    const again = await spawnBerth(["dev", "--config", path.join(project, "graph.json"), "--port", "0"]);
    try {
      assert.equal(await reply(again.url), "second");
    } finally {
      await again.stop();
    }
  });
});
