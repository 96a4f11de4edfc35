// The least an HTTP agent server can spend per run on this stack (issue 12): node:http, a durable
// run row written in one better-sqlite3 transaction at create and one at completion,
// `graph.stream(values)` with the official SqliteSaver, at most 10 graphs at once (Berth's default
// N_JOBS_PER_WORKER), and the join answered from memory. No validation, auth, leases, recovery,
// multitask strategies, stream fan-out or metadata: what it spends, every server spends.
//
// It takes `berth dev`'s arguments, so ab.ts runs it as one more build in its rotation:
//   node --import tsx bench/agent-server/ab.ts \
//     --cli bare=bench/agent-server/bare-server.ts,berth=packages/cli/bin/berth.js
// Serves POST /threads, POST /threads/{id}/runs (`if_not_exists: "create"`) and GET /threads/{id}/runs/{run}/join.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { GRAPH_IDS, type GraphId, graphEntry } from "./workload.js";

/** The parts of a compiled graph this server uses. */
interface StreamableGraph {
  stream(input: unknown, options: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  checkpointer?: unknown;
}

const JOBS = 10;

function argument(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function openFile(file: string): Database.Database {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  return db;
}

/** A message as the API shows it (type, content, id, …), any other value as is. */
function toJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toJson);
  if (typeof value !== "object" || value === null) return value;
  const getType: unknown = Reflect.get(value, "getType");
  if (typeof getType === "function") {
    const m = value as Record<string, unknown>;
    return {
      type: getType.call(value),
      content: m.content,
      id: m.id ?? null,
      name: m.name ?? null,
      additional_kwargs: m.additional_kwargs ?? {},
      response_metadata: m.response_metadata ?? {},
    };
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJson(v)]));
}

async function loadGraphs(saver: SqliteSaver): Promise<Map<string, StreamableGraph>> {
  const graphs = new Map<string, StreamableGraph>();
  for (const id of GRAPH_IDS) {
    const { modulePath, exportName } = graphEntry(id as GraphId);
    const graph = ((await import(pathToFileURL(modulePath).href)) as Record<string, unknown>)[exportName];
    if (typeof graph !== "object" || graph === null || !("stream" in graph))
      throw new Error(`${modulePath} export "${exportName}" is not a compiled graph`);
    (graph as StreamableGraph).checkpointer = saver;
    graphs.set(id, graph as StreamableGraph);
  }
  return graphs;
}

const dataDir = argument("--data-dir") ?? fs.mkdtempSync("/tmp/bare-server-");
fs.mkdirSync(dataDir, { recursive: true });
const db = openFile(path.join(dataDir, "runs.sqlite"));
db.exec(`
  create table if not exists threads (thread_id text primary key, status text, values_json text, updated_at text);
  create table if not exists runs (seq integer primary key autoincrement, run_id text unique, thread_id text,
    status text, kwargs text, created_at text, updated_at text);
  create index if not exists runs_thread on runs (thread_id, status);`);
const graphs = await loadGraphs(new SqliteSaver(openFile(path.join(dataDir, "checkpoints.sqlite"))));

const sql = {
  thread: db.prepare("select thread_id from threads where thread_id = ?"),
  newThread: db.prepare("insert into threads values (?, 'idle', null, ?)"),
  active: db.prepare("select run_id from runs where thread_id = ? and status in ('pending', 'running')"),
  insertRun: db.prepare(
    "insert into runs (run_id, thread_id, status, kwargs, created_at, updated_at) values (?, ?, 'pending', ?, ?, ?)",
  ),
  threadBusy: db.prepare("update threads set status = 'busy', updated_at = ? where thread_id = ?"),
  runDone: db.prepare("update runs set status = ?, updated_at = ? where run_id = ?"),
  threadIdle: db.prepare(
    "update threads set status = 'idle', values_json = ?, updated_at = ? where thread_id = ?",
  ),
};

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const createRun = db.transaction((runId: string, threadId: string, createThread: boolean, kwargs: string) => {
  const now = new Date().toISOString();
  if (!sql.thread.get(threadId)) {
    if (!createThread) throw new HttpError(404, `Thread with ID ${threadId} not found`);
    sql.newThread.run(threadId, now);
  }
  if (sql.active.all(threadId).length > 0) throw new HttpError(409, "Thread is busy");
  sql.insertRun.run(runId, threadId, kwargs, now, now);
  sql.threadBusy.run(now, threadId);
});

const completeRun = db.transaction((runId: string, threadId: string, status: string, values: string) => {
  const now = new Date().toISOString();
  sql.runDone.run(status, now, runId);
  sql.threadIdle.run(values, now, threadId);
});

/** Runs waiting for a slot, and what each finished run answers its join with. */
let running = 0;
const waitingForSlot: Array<() => void> = [];
const ended = new Map<string, string>();
const joiners = new Map<string, (body: string) => void>();

async function execute(runId: string, threadId: string, graph: StreamableGraph, input: unknown) {
  if (running >= JOBS) await new Promise<void>((resolve) => waitingForSlot.push(resolve));
  running += 1;
  let values: unknown = null;
  let status = "success";
  try {
    const options = { configurable: { thread_id: threadId }, streamMode: ["values"], subgraphs: true };
    for await (const chunk of await graph.stream(input, options)) values = (chunk as unknown[])[2];
  } catch (error) {
    status = "error";
    values = { error: String(error) };
  } finally {
    running -= 1;
    waitingForSlot.shift()?.();
  }
  const body = JSON.stringify(toJson(values));
  completeRun(runId, threadId, status, body);
  const joiner = joiners.get(runId);
  if (joiner) {
    joiners.delete(runId);
    joiner(body);
  } else ended.set(runId, body);
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}

function send(res: http.ServerResponse, status: number, body: string) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(body);
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const [, first, threadId, runs, runId, join] = (req.url ?? "").split("/");
  if (req.method === "POST" && first === "threads" && threadId && runs === "runs" && runId === undefined) {
    const body = JSON.parse(await readBody(req)) as {
      assistant_id?: string;
      input?: unknown;
      if_not_exists?: string;
    };
    const graph = graphs.get(body.assistant_id ?? "");
    if (!graph) throw new HttpError(404, `Assistant ${body.assistant_id} not found`);
    const id = randomUUID();
    createRun(id, threadId, body.if_not_exists === "create", JSON.stringify(body));
    void execute(id, threadId, graph, body.input ?? null);
    send(res, 200, JSON.stringify({ run_id: id, thread_id: threadId, status: "pending" }));
  } else if (req.method === "POST" && first === "threads" && threadId === undefined) {
    const body = JSON.parse((await readBody(req)) || "{}") as { thread_id?: string };
    const id = body.thread_id ?? randomUUID();
    sql.newThread.run(id, new Date().toISOString());
    send(res, 200, JSON.stringify({ thread_id: id, status: "idle", values: null }));
  } else if (req.method === "GET" && first === "threads" && runs === "runs" && runId && join === "join") {
    const body = ended.get(runId);
    if (body === undefined) joiners.set(runId, (b) => send(res, 200, b));
    else {
      ended.delete(runId);
      send(res, 200, body);
    }
  } else if (req.method === "GET" && first === "ok") send(res, 200, '{"ok":true}');
  else throw new HttpError(404, "Not Found");
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    const status = error instanceof HttpError ? error.status : 500;
    send(res, status, JSON.stringify({ detail: String(error instanceof Error ? error.message : error) }));
  });
});
server.listen(Number(argument("--port") ?? 0), "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  console.log(`bare server listening on http://127.0.0.1:${port}`);
});
process.once("SIGTERM", () => server.close(() => process.exit(0)));
