import {
  RunCreateStateful,
  RunCreateStateless,
  RunJoinStreamQuery,
  RunParams,
  type StreamMode,
  ThreadParams,
} from "@berth-platform/schemas";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { resultFromOutcome } from "../../domain/run-result.js";
import type { RunOutcome, RunSignals } from "../../queue/types.js";
import type { RunService } from "../../services/runs.js";
import type { RunRecord } from "../../storage/types.js";
import type { StreamBroker, StreamMessage } from "../../stream/types.js";
import { callerOf } from "../auth.js";
import { openSse } from "../sse.js";

/** What the streaming routes need. */
export interface RunStreamDeps {
  runs: RunService;
  broker: StreamBroker;
  signals: RunSignals;
  heartbeatMs: number;
  waitKeepAliveMs: number;
  /** Whether the server is shutting down: a client it disconnects did not ask to cancel. */
  draining: () => boolean;
}

/** The API stream mode an SSE event belongs to (for `stream_mode` filters on join). */
function modeOf(eventName: string): string {
  const base = eventName.split("|")[0] ?? eventName;
  if (base.startsWith("messages/")) return "messages";
  if (base === "messages") return "messages-tuple";
  return base;
}

function locationHeaders(run: RunRecord, stateless: boolean): Record<string, string> {
  const path = stateless ? `/runs/${run.run_id}` : `/threads/${run.thread_id}/runs/${run.run_id}`;
  const headers: Record<string, string> = { "content-location": path };
  if (run.kwargs.resumable && !stateless) headers.location = `${path}/stream`;
  return headers;
}

/** Streaming, waiting and stateless run routes. */
export function runStreamRoutes(deps: RunStreamDeps): FastifyPluginAsyncZod {
  const { runs, broker } = deps;

  /**
   * Creates a run and streams it: the subscription is made before the doorbell rings, so not even
   * the `metadata` event can be missed.
   */
  async function createAndStream(
    request: FastifyRequest,
    reply: FastifyReply,
    create: (hooks: { onCreated: (run: RunRecord) => void }) => Promise<RunRecord>,
    stateless: boolean,
    cancelOnDisconnect: boolean,
  ): Promise<void> {
    const early: StreamMessage[] = [];
    let deliver: (message: StreamMessage) => void = (message) => early.push(message);
    let unsubscribe: () => void = () => {};
    const run = await create({
      onCreated: (created) => {
        // From the start of the run's stream: a broker in another process may deliver late.
        unsubscribe = broker.subscribe(created.run_id, { lastEventId: "-1" }, (message) => deliver(message));
      },
    });
    const sse = openSse(reply, locationHeaders(run, stateless), deps.heartbeatMs);
    deliver = (message) => {
      if (message.kind === "end") {
        unsubscribe();
        sse.end();
      } else sse.send(message.event);
    };
    sse.onClientGone(() => {
      unsubscribe();
      if (cancelOnDisconnect && !deps.draining()) {
        void runs.cancel(run.thread_id, [run.run_id], {
          action: "interrupt",
          wait: false,
          signal: AbortSignal.timeout(0),
        });
      }
    });
    for (const message of early.splice(0)) deliver(message);
    request.log.debug({ run_id: run.run_id }, "streaming run");
  }

  /** Streams an existing run from now (or replays a resumable one after Last-Event-ID). */
  async function joinStream(
    reply: FastifyReply,
    run: RunRecord,
    options: {
      lastEventId: string | undefined;
      modes: StreamMode[] | undefined;
      cancelOnDisconnect: boolean;
    },
  ): Promise<void> {
    const wanted = options.modes ? new Set<string>(options.modes) : undefined;
    const sse = openSse(reply, locationHeaders(run, false), deps.heartbeatMs);
    let unsubscribe: () => void = () => {};
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      unsubscribe();
      sse.end();
    };
    let replayed: (info: { logged: boolean }) => void = () => {};
    const replay = new Promise<{ logged: boolean }>((resolve) => (replayed = resolve));
    const subscription = {
      lastEventId: options.lastEventId,
      onReplayed: (info: { logged: boolean }) => replayed(info),
    };
    unsubscribe = broker.subscribe(run.run_id, subscription, (message) => {
      if (message.kind === "end") finish();
      else if (
        !wanted ||
        ["metadata", "error"].includes(message.event.event) ||
        wanted.has(modeOf(message.event.event))
      ) {
        sse.send(message.event);
      }
    });
    sse.onClientGone(() => {
      unsubscribe();
      if (options.cancelOnDisconnect && !deps.draining()) {
        void runs.cancel(run.thread_id, [run.run_id], {
          action: "interrupt",
          wait: false,
          signal: AbortSignal.timeout(0),
        });
      }
    });
    // A run that is already over has nothing more to say (a resumable one was replayed above);
    // a stream the broker still holds ends by itself, after its last events.
    const { logged } = await replay;
    if (!finished && !logged && (await runs.isOver(run.thread_id, run.run_id))) finish();
  }

  /**
   * Creates a run and answers with its final values once it ends; whitespace keep-alives (valid
   * leading JSON whitespace) flow meanwhile. A failed run answers `{__error__: {error, message}}`.
   */
  async function createAndWait(
    reply: FastifyReply,
    create: (hooks: { onCreated: (run: RunRecord) => void }) => Promise<RunRecord>,
    stateless: boolean,
    cancelOnDisconnect: boolean,
  ): Promise<void> {
    let outcome: RunOutcome | undefined;
    let resolveOutcome: (o: RunOutcome) => void = () => {};
    const ended = new Promise<RunOutcome>((resolve) => (resolveOutcome = resolve));
    let unsubscribe: () => void = () => {};
    const run = await create({
      onCreated: (created) => {
        unsubscribe = deps.signals.onRunEnded(created.run_id, (o) => {
          outcome = o;
          resolveOutcome(o);
        });
      },
    });
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      "content-type": "application/json",
      "access-control-expose-headers": "content-location, x-pagination-total",
      ...(reply.getHeaders() as Record<string, string>),
      ...locationHeaders(run, stateless),
    });
    const keepAlive = setInterval(() => res.write("\n"), deps.waitKeepAliveMs);
    const gone = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) gone.abort();
    });
    try {
      // The signal is the fast path; the thread-run check covers a run that ended in between.
      const over = stateless
        ? new Promise<void>(() => {})
        : runs.waitUntilOver(run.thread_id, run.run_id, gone.signal);
      await Promise.race([
        ended,
        over,
        new Promise((resolve) => gone.signal.addEventListener("abort", resolve)),
      ]);
      if (gone.signal.aborted) {
        if (cancelOnDisconnect && !deps.draining())
          await runs.cancel(run.thread_id, [run.run_id], {
            action: "interrupt",
            wait: false,
            signal: gone.signal,
          });
        return;
      }
      // A kept thread's values come from another process without them (RunOutcome.threadHoldsValues):
      // the database answers then, as it does when the end was seen there first.
      const answer = outcome ? resultFromOutcome(outcome) : undefined;
      // The worker's JSON is sent as it is (not parsed and written again).
      res.end(answer ?? (stateless ? "null" : await runs.endedResult(run.thread_id, run.run_id)));
    } finally {
      clearInterval(keepAlive);
      unsubscribe();
    }
  }

  return async (app) => {
    app.post(
      "/threads/:thread_id/runs/stream",
      { schema: { params: ThreadParams, body: RunCreateStateful } },
      (request, reply) =>
        createAndStream(
          request,
          reply,
          (hooks) => runs.createForThread(request.params.thread_id, request.body, callerOf(request), hooks),
          false,
          request.body.on_disconnect === "cancel",
        ),
    );
    app.post("/runs/stream", { schema: { body: RunCreateStateless } }, (request, reply) =>
      createAndStream(
        request,
        reply,
        (hooks) => runs.createStateless(request.body, callerOf(request), hooks),
        true,
        request.body.on_disconnect === "cancel",
      ),
    );
    app.get(
      "/threads/:thread_id/runs/:run_id/stream",
      { schema: { params: RunParams, querystring: RunJoinStreamQuery } },
      async (request, reply) => {
        const run = await runs.get(request.params.thread_id, request.params.run_id);
        const header = request.headers["last-event-id"];
        const modes = request.query.stream_mode;
        await joinStream(reply, run, {
          lastEventId:
            typeof header === "string" && header !== "" ? (header === "-" ? "-1" : header) : undefined,
          modes: modes === undefined ? undefined : Array.isArray(modes) ? modes : [modes],
          cancelOnDisconnect: request.query.cancel_on_disconnect,
        });
      },
    );
    app.post(
      "/threads/:thread_id/runs/wait",
      { schema: { params: ThreadParams, body: RunCreateStateful } },
      (request, reply) =>
        createAndWait(
          reply,
          (hooks) => runs.createForThread(request.params.thread_id, request.body, callerOf(request), hooks),
          false,
          request.body.on_disconnect === "cancel",
        ),
    );
    app.post("/runs/wait", { schema: { body: RunCreateStateless } }, (request, reply) =>
      createAndWait(
        reply,
        (hooks) => runs.createStateless(request.body, callerOf(request), hooks),
        true,
        request.body.on_disconnect === "cancel",
      ),
    );
    app.post("/runs", { schema: { body: RunCreateStateless } }, async (request, reply) => {
      const run = await runs.createStateless(request.body, callerOf(request));
      reply.headers(locationHeaders(run, true));
      return runs.toWire(run);
    });
    app.post(
      "/runs/batch",
      { schema: { body: z.array(RunCreateStateless).min(1).max(100) } },
      async (request) => {
        const created: ReturnType<RunService["toWire"]>[] = [];
        for (const body of request.body)
          created.push(runs.toWire(await runs.createStateless(body, callerOf(request))));
        return created;
      },
    );
  };
}
