// Issue 12: the embedded cluster (`--workers 2`) on a project as users ship it: its own
// package.json and node_modules outside the workspaces, "type": "commonjs". Each child loads the
// project's graphs itself, so both must resolve the project's own LangGraph copy.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Agent, fetch } from "undici";
import { useOwnDepsServer } from "./own-deps-helpers.js";

const ctx = useOwnDepsServer("commonjs", { BERTH_WORKERS: "2" });

describe("--workers 2 on a CommonJS project with its own node_modules", () => {
  it("both children run the project's graph", async () => {
    const url = ctx.server().url;
    const answeredBy = new Set<string>();
    // A fresh connection per request: the primary deals connections out to the children in turn.
    for (let i = 0; i < 8; i++) {
      const dispatcher = new Agent({ pipelining: 0 });
      try {
        const response = await fetch(`${url}/runs/wait`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            assistant_id: "echo",
            input: { messages: [{ role: "user", content: `hello ${i}` }] },
          }),
          dispatcher,
        });
        assert.equal(response.status, 200);
        const state = (await response.json()) as { messages: Array<{ type: string; content: string }> };
        assert.deepEqual(state.messages.at(-1), {
          ...state.messages.at(-1),
          type: "ai",
          content: `cjs: hello ${i}`,
        });
        answeredBy.add(response.headers.get("x-berth-worker") ?? "none");
      } finally {
        await dispatcher.close();
      }
    }
    assert.deepEqual([...answeredBy].sort(), ["0", "1"]);
    // And through the official SDK, on a thread.
    const client = ctx.client();
    const thread = await client.threads.create();
    const state = (await client.runs.wait(thread.thread_id, "echo", {
      input: { messages: [{ role: "user", content: "sdk" }] },
    })) as { messages: Array<{ type: string; content: string }> };
    assert.deepEqual(
      state.messages.map((m) => [m.type, m.content]),
      [
        ["human", "sdk"],
        ["ai", "cjs: sdk"],
      ],
    );
  });
});
