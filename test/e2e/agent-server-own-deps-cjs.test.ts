// Issue 10 (defect 12): a `"type": "commonjs"` project (what `npm init -y` writes) whose TypeScript
// graphs use ES-module syntax loads and runs, as on the official LangGraph.js server.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { useOwnDepsServer } from "./own-deps-helpers.js";

const ctx = useOwnDepsServer("commonjs");

describe("a CommonJS project with its own node_modules (issue 10)", () => {
  it("loads TS graphs in ES-module syntax from a commonjs package, like the official JS server (defect 12)", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const state = (await client.runs.wait(thread.thread_id, "echo", {
      input: { messages: [{ role: "user", content: "hello" }] },
    })) as { messages: Array<{ type: string; content: string }> };
    assert.deepEqual(
      state.messages.map((m) => [m.type, m.content]),
      [
        ["human", "hello"],
        ["ai", "cjs: hello"],
      ],
    );
    const assistants = await client.assistants.search({ graphId: "echo" });
    assert.equal(assistants.length, 1, "the system assistant exists");
  });
});
