// Human in the loop: a run that stops at interrupt() and a resume with Command({resume}).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { useFixtureServer } from "./helpers.js";

const ctx = useFixtureServer();

describe("human in the loop", () => {
  it("interrupt() ends the run in success with the thread interrupted; resume continues it", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "review", {
      input: { messages: [{ role: "user", content: "the launch" }] },
    });
    await client.runs.join(thread.thread_id, run.run_id);
    assert.equal((await client.runs.get(thread.thread_id, run.run_id)).status, "success");
    const waiting = await client.threads.get(thread.thread_id);
    assert.equal(waiting.status, "interrupted");
    const interrupts = Object.values(waiting.interrupts ?? {}).flat() as Array<{
      value: { question: string; draft: string };
    }>;
    assert.equal(interrupts.length, 1);
    assert.equal(interrupts[0]?.value.draft, "Draft reply about: the launch");
    const state = await client.threads.getState(thread.thread_id);
    assert.deepEqual(state.next, ["review"]);
    assert.equal(state.tasks[0]?.interrupts.length, 1);

    const resumed = await client.runs.create(thread.thread_id, "review", { command: { resume: "approve" } });
    await client.runs.join(thread.thread_id, resumed.run_id);
    assert.equal((await client.runs.get(thread.thread_id, resumed.run_id)).status, "success");
    const done = await client.threads.get(thread.thread_id);
    assert.equal(done.status, "idle");
    const messages = (done.values as { messages: Array<{ content: string }> }).messages.map((m) => m.content);
    assert.deepEqual(messages, [
      "the launch",
      "Draft reply about: the launch",
      "Approved: Draft reply about: the launch",
    ]);
  });

  it("streams the interrupt as a values event and resumes with a replacement", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const parts = [];
    for await (const part of client.runs.stream(thread.thread_id, "review", {
      input: { messages: [{ role: "user", content: "pricing" }] },
      streamMode: "updates",
    })) {
      parts.push(part);
    }
    const interruptUpdate = parts.find((p) => p.event === "updates" && "__interrupt__" in (p.data as object));
    assert.ok(interruptUpdate, "the interrupt is streamed");
    const values = (await client.runs.wait(thread.thread_id, "review", {
      command: { resume: "Cheaper plans soon." },
    })) as {
      messages: Array<{ content: string }>;
    };
    assert.equal(values.messages.at(-1)?.content, "Revised: Cheaper plans soon.");
  });
});
