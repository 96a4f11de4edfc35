// Crons through the SDK: the resource (create, get, search, count, update, delete) and the
// scheduler firing runs on a thread and on new threads.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { systemAssistantId } from "@berth-platform/agent-server";
import { statusOf, useFixtureServer } from "./helpers.js";

const ctx = useFixtureServer();

const EVERY_SECOND = "* * * * * *";

/** Polls `check` until it returns a value (or the time is up). */
async function until<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${ctx.server().url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("crons", () => {
  it("create, get, search, count, update and delete", async () => {
    const client = ctx.client();
    const tag = `tag-${Math.random().toString(36).slice(2, 8)}`;
    const before = Date.now();
    const cron = await client.crons.create("echo", {
      schedule: "0 9 * * *",
      input: { messages: [{ role: "user", content: "hi" }] },
      metadata: { tag },
    });
    assert.deepEqual(Object.keys(cron).sort(), [
      "assistant_id",
      "created_at",
      "cron_id",
      "enabled",
      "end_time",
      "metadata",
      "next_run_date",
      "on_run_completed",
      "payload",
      "schedule",
      "thread_id",
      "timezone",
      "updated_at",
      "user_id",
    ]);
    const wire = cron as unknown as Record<string, unknown>;
    assert.equal(cron.assistant_id, systemAssistantId("echo"));
    assert.equal(cron.thread_id, null);
    assert.equal(wire.timezone, "UTC");
    assert.equal(wire.enabled, true);
    assert.equal(wire.on_run_completed, "delete");
    assert.deepEqual(cron.metadata, { tag });
    assert.deepEqual((cron.payload as { input: unknown }).input, {
      messages: [{ role: "user", content: "hi" }],
    });
    const next = Date.parse(cron.next_run_date);
    assert.ok(next > before && next <= before + 86_400_000);
    assert.equal(new Date(next).getUTCHours(), 9);
    assert.equal(new Date(next).getUTCMinutes(), 0);

    const got = (await (await fetch(`${ctx.server().url}/runs/crons/${cron.cron_id}`)).json()) as {
      cron_id: string;
    };
    assert.equal(got.cron_id, cron.cron_id);

    const found = await client.crons.search({ assistantId: "echo" });
    assert.ok(found.some((c) => c.cron_id === cron.cron_id));
    const byMetadata = (await (await post("/runs/crons/search", { metadata: { tag } })).json()) as Array<{
      cron_id: string;
    }>;
    assert.deepEqual(
      byMetadata.map((c) => c.cron_id),
      [cron.cron_id],
    );
    const selected = await client.crons.search({
      assistantId: "echo",
      select: ["cron_id", "schedule"],
      limit: 1,
    });
    assert.deepEqual(Object.keys(selected[0] ?? {}).sort(), ["cron_id", "schedule"]);
    assert.ok((await client.crons.count({ assistantId: "echo" })) >= 1);
    assert.equal(await client.crons.count({ assistantId: "slow" }), 0);

    const end = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const updated = (await client.crons.update(cron.cron_id, {
      schedule: "30 18 * * *",
      endTime: end,
      enabled: false,
      metadata: { tag, changed: true },
    })) as unknown as Record<string, unknown>;
    assert.equal(updated.schedule, "30 18 * * *");
    assert.equal(updated.end_time, end);
    assert.equal(updated.enabled, false);
    assert.deepEqual(updated.metadata, { tag, changed: true });
    assert.equal(new Date(String(updated.next_run_date)).getUTCHours(), 18);
    assert.equal(
      await client.crons.count({ assistantId: "echo" }),
      (await client.crons.search({ assistantId: "echo", limit: 100 })).length,
    );
    const disabled = (await (
      await post("/runs/crons/search", { enabled: false, metadata: { tag } })
    ).json()) as unknown[];
    assert.equal(disabled.length, 1);

    const cleared = await fetch(`${ctx.server().url}/runs/crons/${cron.cron_id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ end_time: null }),
    });
    assert.equal(((await cleared.json()) as { end_time: unknown }).end_time, null);

    await client.crons.delete(cron.cron_id);
    assert.equal((await fetch(`${ctx.server().url}/runs/crons/${cron.cron_id}`)).status, 404);
    assert.equal(await statusOf(client.crons.delete(cron.cron_id)), 404);
  });

  it("refuses bad schedules and timezones (422), unknown assistants and threads (404)", async () => {
    const client = ctx.client();
    assert.equal(await statusOf(client.crons.create("echo", { schedule: "every day" })), 422);
    assert.equal(await statusOf(client.crons.create("nope", { schedule: "0 9 * * *" })), 404);
    assert.equal(
      await statusOf(client.crons.createForThread(crypto.randomUUID(), "echo", { schedule: "0 9 * * *" })),
      404,
    );
    const zone = await post("/runs/crons", {
      assistant_id: "echo",
      schedule: "0 9 * * *",
      timezone: "Mars/Olympus",
    });
    assert.equal(zone.status, 422);
    assert.equal(typeof ((await zone.json()) as { detail: unknown }).detail, "string");
  });

  it("reads the schedule in the cron's timezone", async () => {
    const response = await post("/runs/crons", {
      assistant_id: "echo",
      schedule: "0 9 * * *",
      timezone: "Asia/Tokyo",
    });
    assert.equal(response.status, 200);
    const cron = (await response.json()) as { cron_id: string; timezone: string; next_run_date: string };
    assert.equal(cron.timezone, "Asia/Tokyo");
    // 09:00 in Tokyo (no daylight saving) is 00:00 UTC.
    assert.equal(new Date(cron.next_run_date).getUTCHours(), 0);
    await ctx.client().crons.delete(cron.cron_id);
  });

  it("a thread cron fires every second, enqueued on its thread, until it is deleted", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const cron = await client.crons.createForThread(thread.thread_id, "echo", {
      schedule: EVERY_SECOND,
      input: { messages: [{ role: "user", content: "tick" }] },
    });
    assert.equal(cron.thread_id, thread.thread_id);
    const runs = await until(async () => {
      const list = await client.runs.list(thread.thread_id, { status: "success" });
      return list.length >= 2 ? list : undefined;
    });
    assert.ok(runs.every((r) => r.multitask_strategy === "enqueue"));
    await client.crons.delete(cron.cron_id);
    await sleep(300);
    const settled = (await client.runs.list(thread.thread_id, { limit: 100 })).length;
    await sleep(2_000);
    assert.equal(
      (await client.runs.list(thread.thread_id, { limit: 100 })).length,
      settled,
      "no run after delete",
    );
    const state = await client.threads.getState(thread.thread_id);
    const messages = (state.values as { messages: Array<{ content: string }> }).messages;
    assert.ok(messages.length >= 4);
    assert.equal(messages.at(-1)?.content, "tick");
  });

  it("a stateless cron runs on a new thread each time, kept with on_run_completed=keep", async () => {
    const client = ctx.client();
    const tag = `stateless-${Math.random().toString(36).slice(2, 8)}`;
    const cron = await client.crons.create("echo", {
      schedule: EVERY_SECOND,
      input: { messages: [{ role: "user", content: tag }] },
      onRunCompleted: "keep",
    });
    const threads = await until(async () => {
      const found = await client.threads.search({ values: { messages: [{ content: tag }] }, limit: 100 });
      return found.length >= 2 ? found : undefined;
    });
    await client.crons.delete(cron.cron_id);
    assert.equal(new Set(threads.map((t) => t.thread_id)).size, threads.length);
    for (const thread of threads.slice(0, 2)) {
      const runs = await client.runs.list(thread.thread_id);
      assert.equal(runs.length, 1);
      assert.equal(runs[0]?.status, "success");
      assert.equal(runs[0]?.assistant_id, systemAssistantId("echo"));
    }
  });

  it("a disabled cron does not fire; enabling it does; end_time stops it", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const cron = await client.crons.createForThread(thread.thread_id, "echo", {
      schedule: EVERY_SECOND,
      input: { messages: [{ role: "user", content: "x" }] },
      enabled: false,
    });
    await sleep(2_200);
    assert.deepEqual(await client.runs.list(thread.thread_id), []);
    await client.crons.update(cron.cron_id, {
      enabled: true,
      endTime: new Date(Date.now() + 1_500).toISOString(),
    });
    await until(async () => ((await client.runs.list(thread.thread_id)).length > 0 ? true : undefined));
    await sleep(1_500);
    const stopped = (await (await fetch(`${ctx.server().url}/runs/crons/${cron.cron_id}`)).json()) as {
      next_run_date: string | null;
    };
    assert.equal(stopped.next_run_date, null);
    const count = (await client.runs.list(thread.thread_id, { limit: 100 })).length;
    assert.ok(count >= 1 && count <= 2, `fired ${count} times in 1.5 s`);
    await sleep(1_500);
    assert.equal((await client.runs.list(thread.thread_id, { limit: 100 })).length, count);
    await client.crons.delete(cron.cron_id);
  });

  it("deleting the thread deletes its crons", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const cron = await client.crons.createForThread(thread.thread_id, "echo", { schedule: "0 9 * * *" });
    assert.equal(await client.crons.count({ threadId: thread.thread_id }), 1);
    await client.threads.delete(thread.thread_id);
    assert.equal((await fetch(`${ctx.server().url}/runs/crons/${cron.cron_id}`)).status, 404);
  });
});
