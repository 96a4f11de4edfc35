// A resumable stream dropped in the middle of a run and rejoined with Last-Event-ID: no gap, no duplicate.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { makeTempDir, spawnBerth } from "@berth-platform/testkit";
import { FIXTURE_CONFIG, useFixtureServer } from "./helpers.js";

const ctx = useFixtureServer();

interface Frame {
  id: number;
  event: string;
  data: unknown;
}

/** Reads SSE frames from a response until `stopAfter` frames (then aborts) or the end. */
async function readFrames(response: Response, stopAfter: number, abort: AbortController): Promise<Frame[]> {
  const frames: Frame[] = [];
  const reader = response.body?.getReader();
  if (!reader) throw new Error("no body");
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    while (frames.length < stopAfter) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      for (
        let end = buffer.indexOf("\n\n");
        end >= 0 && frames.length < stopAfter;
        end = buffer.indexOf("\n\n")
      ) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = Object.fromEntries(
          block
            .split("\n")
            .filter((line) => !line.startsWith(":") && line.includes(": "))
            .map((line) => [line.slice(0, line.indexOf(": ")), line.slice(line.indexOf(": ") + 2)]),
        );
        if (fields.id !== undefined)
          frames.push({
            id: Number(fields.id),
            event: fields.event ?? "",
            data: JSON.parse(fields.data ?? "null"),
          });
      }
    }
  } finally {
    if (frames.length >= stopAfter) abort.abort();
  }
  return frames;
}

describe("resumable streams", () => {
  it("a client that drops mid-run and rejoins with Last-Event-ID gets every event exactly once", async () => {
    const url = ctx.server().url;
    const thread = await ctx.client().threads.create();
    const first = new AbortController();
    const response = await fetch(`${url}/threads/${thread.thread_id}/runs/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        assistant_id: "steps",
        input: {},
        stream_mode: ["values", "updates"],
        stream_resumable: true,
      }),
      signal: first.signal,
    });
    const location = response.headers.get("location");
    assert.ok(location?.endsWith("/stream"), "a resumable stream names where to rejoin");
    const before = await readFrames(response, 4, first).catch(() => []);
    assert.equal(before.length, 4, "read some events, then dropped");
    const last = before.at(-1)?.id ?? -1;

    const rejoin = new AbortController();
    const again = await fetch(`${url}${location}`, {
      headers: { "last-event-id": String(last) },
      signal: rejoin.signal,
    });
    const after = await readFrames(again, Number.POSITIVE_INFINITY, rejoin);
    const ids = [...before, ...after].map((f) => f.id);
    const start = ids[0] ?? 0;
    assert.deepEqual(
      ids,
      ids.map((_, i) => start + i),
      `consecutive ids with no gap or duplicate (${ids.join(",")})`,
    );
    const values = [...before, ...after]
      .filter((f) => f.event === "values")
      .map((f) => (f.data as { count: number }).count);
    assert.equal(values.at(-1), 8, "the stream reached the run's end after the rejoin");
    const runs = await ctx.client().runs.list(thread.thread_id);
    assert.equal(runs[0]?.status, "success", "dropping the stream did not cancel the run");
  });
});

describe("resumable streams across a restart (issue 11 item 9)", () => {
  const temp = makeTempDir();
  after(() => temp.cleanup());

  it("a client rejoining with its Last-Event-ID from before a crash gets the resumed attempt's events", async () => {
    const args = ["dev", "--config", FIXTURE_CONFIG, "--port", "0", "--data-dir", temp.dir];
    const first = await spawnBerth(args);
    let second: Awaited<ReturnType<typeof spawnBerth>> | undefined;
    try {
      const created = await fetch(`${first.url}/threads`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      const thread = (await created.json()) as { thread_id: string };
      const abort = new AbortController();
      const response = await fetch(`${first.url}/threads/${thread.thread_id}/runs/stream`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          assistant_id: "steps",
          input: {},
          stream_mode: ["values"],
          stream_resumable: true,
        }),
        signal: abort.signal,
      });
      const location = response.headers.get("location");
      assert.ok(location);
      // metadata + the first values, then the server dies mid-run.
      const before = await readFrames(response, 3, abort).catch(() => []);
      assert.equal(before.length, 3);
      const last = before.at(-1)?.id ?? -1;
      await first.stop("SIGKILL");

      second = await spawnBerth(args);
      const rejoin = new AbortController();
      const again = await fetch(`${second.url}${location}`, {
        headers: { "last-event-id": String(last) },
        signal: rejoin.signal,
      });
      const afterRestart = await readFrames(again, Number.POSITIVE_INFINITY, rejoin);
      assert.ok(
        afterRestart.every((f) => f.id > last),
        `every id after the restart is past the client's (${last}): ${afterRestart.map((f) => f.id).join(",")}`,
      );
      const counts = afterRestart
        .filter((f) => f.event === "values")
        .map((f) => (f.data as { count: number }).count);
      assert.equal(counts.at(-1), 8, `the resumed attempt's events reach the client (${counts.join(",")})`);
    } finally {
      await second?.stop();
      await first.stop();
    }
  });
});
