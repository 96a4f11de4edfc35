// Issue 10: a graph project with its own node_modules (its own @langchain/* copies), run through
// `berth dev` with the official SDK, behaves like the official LangGraph.js server.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { useOwnDepsServer } from "./own-deps-helpers.js";

const ctx = useOwnDepsServer("esm", {
  LANGGRAPH_CONFIG: JSON.stringify({
    loop: { recursion_limit: 50, tags: ["from-env"], context: { tone: "dry" } },
  }),
});
const ask = (content: string) => ({ messages: [{ role: "user", content }] });

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const part of stream) out.push(part);
  return out;
}

/** The JSON the `probe` graph answers with: what its node saw in its config. */
async function probe(body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const client = ctx.client();
  const thread = await client.threads.create();
  const state = (await client.runs.wait(thread.thread_id, "probe", { input: ask("hi"), ...body })) as {
    messages: Array<{ content: string }>;
  };
  return JSON.parse(state.messages.at(-1)?.content ?? "{}") as Record<string, unknown>;
}

describe("a project with its own node_modules (issue 10)", () => {
  it("messages/partial carries the message accumulated so far, like the official JS server (defect 1)", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const parts = await collect(
      client.runs.stream(thread.thread_id, "chat", { input: ask("hi"), streamMode: "messages" }),
    );
    const partials = parts
      .filter((p) => p.event === "messages/partial")
      .map((p) => (p.data as Array<{ content: string }>)[0]?.content);
    assert.ok(partials.length > 2, `streams tokens (got ${partials.length} partials)`);
    assert.equal(partials.at(-1), "Hello world", "the last partial is the whole message");
    for (let i = 1; i < partials.length; i++)
      assert.ok(partials[i]?.startsWith(partials[i - 1] ?? "\0"), `partial ${i} extends the previous one`);
  });

  it("keeps configurable.user_id from the request without auth, like the official JS server (defect 3)", async () => {
    const seen = await probe({
      config: { configurable: { user_id: "alice", langgraph_auth_user_id: "mallory" } },
    });
    assert.equal(seen.user_id, "alice");
    assert.equal(seen.langgraph_auth_user_id, "", "a caller cannot set the authenticated identity");
  });

  it("keeps configurable.user_id from the assistant's config (defect 3)", async () => {
    const client = ctx.client();
    const assistant = await client.assistants.create({
      graphId: "probe",
      config: { configurable: { user_id: "bob" } },
    });
    const thread = await client.threads.create();
    const state = (await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input: ask("hi"),
    })) as {
      messages: Array<{ content: string }>;
    };
    assert.equal(JSON.parse(state.messages.at(-1)?.content ?? "{}").user_id, "bob");
  });

  it("maps config.recursion_limit and tags to LangGraph.js, like the official JS server (defect 4)", async () => {
    const seen = await probe({ config: { recursion_limit: 7, tags: ["t1"] } });
    assert.equal(seen.recursionLimit, 7);
    assert.ok(
      (seen.tags as string[]).includes("t1"),
      `tags reach the node (got ${JSON.stringify(seen.tags)})`,
    );
  });

  it("a run past config.recursion_limit fails with GraphRecursionError (defect 4)", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const parts = await collect(
      client.runs.stream(thread.thread_id, "loop", {
        input: { count: 0 },
        config: { recursion_limit: 3 },
        streamMode: "values",
      }),
    );
    const error = parts.find((p) => p.event === "error");
    assert.ok(error, `the run fails (events: ${parts.map((p) => p.event).join(", ")})`);
    assert.match(JSON.stringify(error.data), /Recursion/i);
    const ok = await client.runs.wait(thread.thread_id, "loop", { input: { count: 0 } });
    assert.equal((ok as { count: number }).count, 10, "the default limit lets it finish");
  });

  it("a limit set on the assistant's config applies to its runs (defect 4)", async () => {
    const client = ctx.client();
    const assistant = await client.assistants.create({ graphId: "loop", config: { recursion_limit: 3 } });
    const thread = await client.threads.create();
    await client.runs
      .wait(thread.thread_id, assistant.assistant_id, { input: { count: 0 } })
      .catch(() => undefined);
    const [run] = await client.runs.list(thread.thread_id);
    assert.equal(run?.status, "error");
  });

  it("answers 404s with the official JS server's wording (defect 13)", async () => {
    const client = ctx.client();
    const missing = "00000000-0000-4000-8000-000000000000";
    const detailOf = async (promise: Promise<unknown>) => {
      const error = await promise.then(
        () => assert.fail("expected a 404"),
        (e: unknown) => e as { status?: number; message?: string },
      );
      assert.equal(error.status, 404);
      // The SDK's message is `HTTP 404: <body>`; the body is the API's `{detail}`.
      const body = (error.message ?? "").replace(/^HTTP \d+: /, "");
      return (JSON.parse(body) as { detail: string }).detail;
    };
    assert.match(await detailOf(client.assistants.get(missing)), /^Assistant not found$/);
    assert.match(
      await detailOf(client.threads.get(missing)),
      new RegExp(`^Thread with ID ${missing} not found$`),
    );
    const thread = await client.threads.create();
    assert.match(
      await detailOf(client.runs.create(thread.thread_id, "no-such-graph", { input: ask("hi") })),
      /^No assistant found for "no-such-graph"\. Make sure the assistant ID is for a valid assistant or a valid graph ID\./,
    );
  });

  it("assistant search by name matches _ and % literally, like the official servers (defect 9)", async () => {
    const client = ctx.client();
    const tag = `n${Date.now()}`;
    for (const name of [`${tag}_a%b`, `${tag}XaYb`, `${tag}_a%bc`])
      await client.assistants.create({ graphId: "probe", name });
    const names = async (name: string) =>
      (await client.assistants.search({ name, limit: 100 })).map((a) => a.name).sort();
    assert.deepEqual(await names(`${tag}_a%b`), [`${tag}_a%b`, `${tag}_a%bc`]);
    assert.deepEqual(await names(`${tag}xayb`), [`${tag}XaYb`], "case-insensitive");
    assert.deepEqual(await names(`${tag}_`), [`${tag}_a%b`, `${tag}_a%bc`]);
  });

  it("registers the SDK logger before importing graphs, like the official JS server (defect 2)", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const state = (await client.runs.wait(thread.thread_id, "logged", { input: ask("hi") })) as {
      messages: Array<{ content: string }>;
    };
    assert.equal(state.messages.at(-1)?.content, "logged");
  });

  it("serves the other graphs when one fails to load, and says so at start-up, in /info and on runs (defect 2)", async () => {
    assert.match(
      ctx.server().output(),
      /NOT LOADED: broken: .*broken graph: missing OPENAI_API_KEY/,
      "start-up output",
    );
    const info = (await (await fetch(`${ctx.server().url}/info`)).json()) as {
      graph_load_errors?: Record<string, string>;
    };
    assert.match(info.graph_load_errors?.broken ?? "", /broken graph: missing OPENAI_API_KEY/);
    assert.deepEqual(Object.keys(info.graph_load_errors ?? {}), ["broken"]);
    const client = ctx.client();
    const thread = await client.threads.create();
    await assert.rejects(
      client.runs.wait(thread.thread_id, "broken", { input: ask("hi") }),
      (error: Error) => {
        assert.match(error.message, /422.*broken graph: missing OPENAI_API_KEY/s);
        return true;
      },
    );
    const state = (await client.runs.wait(thread.thread_id, "logged", { input: ask("hi") })) as {
      messages: Array<{ content: string }>;
    };
    assert.equal(state.messages.at(-1)?.content, "logged", "the other graphs run");
  });

  it("applies LANGGRAPH_CONFIG to the system assistants, like the official servers (defect 10)", async () => {
    const client = ctx.client();
    const [loop] = await client.assistants.search({ graphId: "loop", metadata: { created_by: "system" } });
    assert.deepEqual(loop?.config, { recursion_limit: 50, tags: ["from-env"] });
    assert.deepEqual(loop?.context, { tone: "dry" });
    const [probe] = await client.assistants.search({ graphId: "probe", metadata: { created_by: "system" } });
    assert.deepEqual(probe?.config, {}, "graphs not named keep an empty config");
  });
});
