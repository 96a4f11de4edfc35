// What `/runs/wait` and `/join` answer, as the official server answers it: the run's last `values`
// chunk. That is `{__interrupt__: [...]}` for a run that stopped at an interrupt (the
// human-in-the-loop docs read `result.__interrupt__`) and `{__error__}` for one that failed. A join
// after the run's end reads the same from the thread, as the official server's fallback does.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { useFixtureServer } from "./helpers.js";

const ctx = useFixtureServer();

type Interrupt = { value: { question: string; draft: string }; id?: string };

describe("the result of a run, as wait and join answer it", () => {
  it("a run that stops at interrupt(): {__interrupt__} from wait, from a join meanwhile and from a join after", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const input = { messages: [{ role: "user", content: "the launch" }] };
    const waited = (await client.runs.wait(thread.thread_id, "review", { input })) as Record<string, unknown>;
    assert.deepEqual(Object.keys(waited), ["__interrupt__"]);
    const interrupts = waited.__interrupt__ as Interrupt[];
    assert.equal(interrupts.length, 1);
    assert.equal(interrupts[0]?.value.draft, "Draft reply about: the launch");
    // The same interrupts the thread shows.
    const stored = await client.threads.get(thread.thread_id);
    assert.equal(stored.status, "interrupted");
    assert.deepEqual(interrupts, Object.values(stored.interrupts ?? {}).flat());

    // Joined while it runs (the end signal answers) and after its end (the thread answers).
    const second = await client.threads.create();
    const run = await client.runs.create(second.thread_id, "review", { input });
    const joined = (await client.runs.join(second.thread_id, run.run_id)) as Record<string, unknown>;
    assert.deepEqual(Object.keys(joined), ["__interrupt__"]);
    const later = (await client.runs.join(second.thread_id, run.run_id)) as Record<string, unknown>;
    assert.deepEqual(later, joined);

    // Resumed to its end: the thread's values again.
    const done = (await client.runs.wait(second.thread_id, "review", { command: { resume: "approve" } })) as {
      messages: Array<{ content: string }>;
    };
    assert.equal(done.messages.at(-1)?.content, "Approved: Draft reply about: the launch");
    assert.deepEqual(
      await client.runs.join(second.thread_id, run.run_id),
      done,
      "the thread is no longer interrupted",
    );
  });

  it("a static breakpoint: wait answers the interrupt chunk LangGraph.js streams, {__interrupt__: []}", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const waited = await client.runs.wait(thread.thread_id, "review", {
      input: { messages: [{ role: "user", content: "pricing" }] },
      interruptBefore: ["review"],
    });
    assert.deepEqual(waited, { __interrupt__: [] });
  });

  it("a failed run: {__error__} from a join as from wait", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "failing", { input: { messages: [] } });
    const joined = (await client.runs.join(thread.thread_id, run.run_id)) as {
      __error__?: { error: string; message: string };
    };
    assert.deepEqual(joined.__error__, {
      error: "Error",
      message: "boom: the fixture graph failed on purpose",
    });
    assert.deepEqual(await client.runs.join(thread.thread_id, run.run_id), joined, "joined after its end");
    await assert.rejects(
      client.runs.wait(thread.thread_id, "failing", { input: { messages: [] } }),
      /boom: the fixture graph failed on purpose/,
      "the SDK's wait throws what __error__ says",
    );
  });

  it("a graph whose output is narrower than its state: wait answers the last values chunk the stream shows", async () => {
    const client = ctx.client();
    const input = { question: "why" };
    const streamed: unknown[] = [];
    const first = await client.threads.create();
    for await (const part of client.runs.stream(first.thread_id, "narrow", { input, streamMode: "values" }))
      if (part.event === "values") streamed.push(part.data);
    assert.ok(streamed.length > 0);
    const second = await client.threads.create();
    assert.deepEqual(await client.runs.wait(second.thread_id, "narrow", { input }), streamed.at(-1));
  });
});
