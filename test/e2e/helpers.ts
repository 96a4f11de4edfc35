import path from "node:path";
import { after, before } from "node:test";
import { makeTempDir, repoRoot, type SpawnedServer, spawnBerth } from "@berth-platform/testkit";
import { Client } from "@langchain/langgraph-sdk";

/** The fixture project: the example agent plus slow, failing, builder and factory graphs. */
export const FIXTURE_CONFIG = path.join(repoRoot, "test/fixtures/graphs/graph.json");

/** A message for the `slow` graph that sleeps `ms` before answering. */
export const sleepy = (ms: number, tag: string) => ({
  messages: [{ role: "user", content: `${tag} sleep ${ms}` }],
});

/**
 * Waits until a run is executing (polled every 50 ms); throws after `timeoutMs`, so a test fails
 * on that, not on a later check of a run that never started.
 */
export async function untilRunning(
  client: Client,
  threadId: string,
  runId: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await client.runs.get(threadId, runId)).status !== "running") {
    if (Date.now() > deadline) throw new Error(`run ${runId} was not running within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts one `berth dev` on the fixture project for the test file, stopped after it. */
export function useFixtureServer(env: Record<string, string> = {}): {
  client(): Client;
  server(): SpawnedServer;
  dataDir: string;
} {
  const temp = makeTempDir();
  let server: SpawnedServer | undefined;
  let client: Client | undefined;
  before(async () => {
    server = await spawnBerth(["dev", "--config", FIXTURE_CONFIG, "--port", "0", "--data-dir", temp.dir], {
      env,
    });
    client = new Client({ apiUrl: server.url });
  });
  after(async () => {
    await server?.stop();
    temp.cleanup();
  });
  return {
    client: () => {
      if (!client) throw new Error("server not started");
      return client;
    },
    server: () => {
      if (!server) throw new Error("server not started");
      return server;
    },
    dataDir: temp.dir,
  };
}

/** The HTTP status of an SDK error (it throws HTTPError with `.status`). */
export async function statusOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (typeof status === "number") return status;
    throw error;
  }
}

/** Message types of a thread state's values. */
export function messageTypes(values: unknown): string[] {
  const messages = (values as { messages?: Array<{ type: string }> }).messages ?? [];
  return messages.map((m) => m.type);
}
