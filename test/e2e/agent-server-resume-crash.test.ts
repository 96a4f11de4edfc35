// A resumable stream across kill -9 and a restart of a one-process server (issue 27 item 8): the
// events a client got before the crash keep their ids, and a rejoin with its Last-Event-ID after
// the restart gets every later event exactly once. Repeated, killing at a different point each time.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { makeTempDir, type SpawnedServer, spawnBerth } from "@berth-platform/testkit";
import { Client } from "@langchain/langgraph-sdk";
import { FIXTURE_CONFIG } from "./helpers.js";

interface Part {
  id: number;
  event: string;
  data: unknown;
}

const TRIES = 5;
const MODES = ["values", "updates"] as const;

/** Reads a stream into `into` until it ends or is aborted (errors of an aborted stream ignored). */
async function drain(stream: AsyncIterable<{ id?: string; event: string; data: unknown }>, into: Part[]) {
  try {
    for await (const part of stream) {
      if (part.id === undefined) continue;
      into.push({ id: Number(part.id), event: part.event, data: part.data });
    }
  } catch {
    // The stream was aborted (or the server died): what was read is what was delivered.
  }
}

/** What a run's parts say: the `count` of each values event and the node of each update. */
function summary(parts: Part[]): { counts: number[]; nodes: string[] } {
  return {
    counts: parts.filter((p) => p.event === "values").map((p) => (p.data as { count: number }).count),
    nodes: parts.filter((p) => p.event === "updates").flatMap((p) => Object.keys(p.data as object)),
  };
}

describe("resumable streams across kill -9 and a restart, one process (issue 27 item 8)", () => {
  const temp = makeTempDir("berth-resume-crash-");
  let server: SpawnedServer | undefined;
  after(async () => {
    await server?.stop();
    temp.cleanup();
  });
  const args = ["dev", "--config", FIXTURE_CONFIG, "--port", "0", "--workers", "1", "--data-dir", temp.dir];

  it(`${TRIES} crashes mid-run: ids kept, every later event exactly once`, async () => {
    server = await spawnBerth(args);
    const failures: string[] = [];
    for (let attempt = 0; attempt < TRIES; attempt += 1) {
      const client = new Client({ apiUrl: server.url });
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, "steps", {
        input: {},
        streamMode: [...MODES],
        streamResumable: true,
      });
      // Listen from the start, then kill -9 at a different point of each try: after 2..6 parts
      // and a further 0..120 ms (a step takes 150 ms), so the crash lands before, during and
      // after a step's checkpoint.
      const before: Part[] = [];
      const abort = new AbortController();
      const reading = drain(
        client.runs.joinStream(thread.thread_id, run.run_id, {
          lastEventId: "-1",
          streamMode: [...MODES],
          signal: abort.signal,
        }),
        before,
      );
      const wanted = 2 + attempt;
      for (let i = 0; i < 400 && before.length < wanted; i += 1) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, attempt * 30));
      abort.abort();
      await reading;
      const delivered = before.map((p) => ({ ...p }));
      await server.stop("SIGKILL");

      server = await spawnBerth(args);
      const again = new Client({ apiUrl: server.url });
      const rest: Part[] = [];
      await drain(
        again.runs.joinStream(thread.thread_id, run.run_id, {
          lastEventId: String(delivered.at(-1)?.id ?? -1),
          streamMode: [...MODES],
        }),
        rest,
      );
      // The whole stream again from the start, after the run ended.
      const replay: Part[] = [];
      await drain(
        again.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "-1", streamMode: [...MODES] }),
        replay,
      );
      const final = await again.runs.get(thread.thread_id, run.run_id);

      const label = `try ${attempt + 1} (crash after ${delivered.length} parts)`;
      const all = [...delivered, ...rest];
      const ids = all.map((p) => p.id);
      const { counts, nodes } = summary(all);
      const problems: string[] = [];
      if (final.status !== "success") problems.push(`run ended ${final.status}`);
      if (!ids.every((id, i) => i === 0 || id > (ids[i - 1] ?? 0)))
        problems.push(`ids not increasing: ${ids}`);
      // values: the state after each step, 1..8, each once; updates: step0..step7, each once.
      if (counts.join(",") !== "1,2,3,4,5,6,7,8") problems.push(`values counts ${counts.join(",")}`);
      const steps = Array.from({ length: 8 }, (_, i) => `step${i}`).join(",");
      if (nodes.join(",") !== steps) problems.push(`updates ${nodes.join(",")}`);
      // The replay from the start holds what was delivered before the crash, under the same ids.
      const replayed = replay.slice(0, delivered.length);
      if (JSON.stringify(replayed) !== JSON.stringify(delivered))
        problems.push(
          `replay after the restart differs from what was delivered: ${JSON.stringify(replayed)} vs ${JSON.stringify(delivered)}`,
        );
      if (JSON.stringify(replay) !== JSON.stringify(all))
        problems.push("the replay from the start is not what the client got in two pieces");
      if (problems.length > 0) failures.push(`${label}: ${problems.join("; ")}`);
    }
    assert.deepEqual(failures, [], failures.join("\n"));
  });
});
