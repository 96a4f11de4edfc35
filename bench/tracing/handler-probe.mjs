// Probe for docs/decisions.md ("Cheap tracing", issue 30 item 4): the CPU the example graph adds
// per run with (a) the SDK's callback tracer (LANGSMITH_TRACING=true, what a deployed agent does
// today), (b) a prototype of a lean callback handler that records the same runs (ids, parents,
// dotted order, inputs, outputs, serialized, events, metadata, runtime) and posts one multipart
// body per trace, and (d) a no-op handler (the callback dispatch any handler pays), against
// (c) no tracing, and (e) the agent server's own tracer as built (packages/agent-server/src/tracing,
// from its dist: run `npm run build` first), with LANGSMITH_TRACING on as in a deployment. One
// process, the five interleaved (c a b d e, e d b a c, …), CPU from process.cpuUsage(). A
// do-nothing HTTP sink in its own process takes the uploads. (b) was the first prototype.
// Usage: node bench/tracing/handler-probe.mjs [runs per phase] [rounds]
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import os from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";

if (process.argv[2] === "--sink") {
  const http = await import("node:http");
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const info = req.url?.endsWith("/info");
      res.writeHead(info ? 200 : 202, { "content-type": "application/json" });
      res.end(
        info
          ? JSON.stringify({ version: "0.16.0", batch_ingest_config: { use_multipart_endpoint: true } })
          : "{}",
      );
    });
  });
  server.listen(0, "127.0.0.1", () => process.send?.(server.address().port));
  process.on("disconnect", () => process.exit(0)); // the probe has ended, however it ended
} else {
  const RUNS = Number(process.argv[2] ?? 100);
  const ROUNDS = Number(process.argv[3] ?? 3);
  const sink = fork(fileURLToPath(import.meta.url), ["--sink"], { stdio: "ignore" });
  const port = await new Promise((resolve) => sink.once("message", resolve));
  const endpoint = `http://127.0.0.1:${port}`;
  Object.assign(process.env, {
    LANGCHAIN_CALLBACKS_BACKGROUND: "true",
    LANGSMITH_ENDPOINT: endpoint,
    LANGSMITH_API_KEY: "probe",
    LANGSMITH_DISABLE_MULTIPART_STREAMING: "true",
    LANGSMITH_PROJECT: "probe",
  });
  const { graph } = await import("@berth-platform/example-react-agent");
  // The agent server's own tracer (packages/agent-server/src/tracing), as `berth` runs it.
  const { createRunTracer } = await import("../../packages/agent-server/dist/tracing/run-tracer.js");
  const { chooseTracer } = await import("../../packages/agent-server/dist/tracing/settings.js");
  const pino = (await import("pino")).default;
  const serverTracer = createRunTracer(
    chooseTracer({ ...process.env, LANGSMITH_TRACING: "true" }),
    pino({ level: "warn" }),
  );
  const runtime = {
    sdk: "berth-probe",
    platform: process.platform,
    runtime: "node",
    runtime_version: process.version,
  };

  /** The lean handler: one record per run, serialised once at the trace's end, one body per trace. */
  class LeanTracer extends BaseCallbackHandler {
    name = "berth_lean_tracer";
    runs = new Map();
    traces = 0;
    sent = 0;
    runsSent = 0;
    start(runId, parentRunId, fields) {
      const parent = parentRunId ? this.runs.get(parentRunId) : undefined;
      const start = Date.now();
      const stamp = `${new Date(start).toISOString().replace(/[-:.]/g, "").replace("Z", "000Z")}${runId}`;
      this.runs.set(runId, {
        ...fields,
        id: runId,
        parent_run_id: parentRunId ?? null,
        trace_id: parent ? parent.trace_id : runId,
        dotted_order: parent ? `${parent.dotted_order}.${stamp}` : stamp,
        start_time: start,
        events: [{ name: "start", time: new Date(start).toISOString() }],
        children: [],
      });
      parent?.children.push(runId);
    }
    end(runId, outputs, error) {
      const run = this.runs.get(runId);
      if (!run) return;
      run.end_time = Date.now();
      run.outputs = outputs;
      if (error) run.error = String(error);
      run.events.push({ name: error ? "error" : "end", time: new Date(run.end_time).toISOString() });
      if (run.parent_run_id === null) return this.flush(run);
    }
    flush(root) {
      const parts = [];
      const visit = (run) => {
        this.runs.delete(run.id);
        const { inputs, outputs, events, serialized, metadata, children, ...rest } = run;
        const boundary = "leanBoundary";
        const fields = [
          [`post.${run.id}`, { ...rest, session_name: "probe" }],
          [`post.${run.id}.inputs`, inputs],
          [`post.${run.id}.outputs`, outputs],
          [`post.${run.id}.events`, events],
          [`post.${run.id}.extra`, { metadata, runtime }],
          [`post.${run.id}.serialized`, serialized],
        ];
        for (const [name, value] of fields) {
          if (value === undefined) continue;
          const body = JSON.stringify(value);
          parts.push(
            `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\nContent-Type: application/json; length=${Buffer.byteLength(body)}\r\n\r\n${body}\r\n`,
          );
        }
        for (const child of children) {
          const c = this.runs.get(child);
          if (c) visit(c);
        }
      };
      visit(root);
      this.traces += 1;
      this.sent += parts.length;
      this.runsSent += parts.filter((part) => /name="post\.[^."]+"/.test(part)).length;
      parts.push("--leanBoundary--\r\n");
      return fetch(`${endpoint}/runs/multipart`, {
        method: "POST",
        headers: { "content-type": "multipart/form-data; boundary=leanBoundary" },
        body: Buffer.from(parts.join("")),
      }).then((r) => r.arrayBuffer());
    }
    // What the callback manager passes (not the order BaseCallbackHandler's typings show).
    handleChainStart(chain, inputs, runId, parentRunId, tags, metadata, runType, runName) {
      this.start(runId, parentRunId, {
        name: runName ?? chain.id?.at(-1),
        run_type: runType ?? "chain",
        inputs,
        serialized: chain,
        tags,
        metadata,
      });
    }
    handleChainEnd(outputs, runId) {
      return this.end(runId, outputs);
    }
    handleChainError(err, runId) {
      return this.end(runId, undefined, err);
    }
    handleChatModelStart(llm, messages, runId, parentRunId, extraParams, tags, metadata, runName) {
      this.start(runId, parentRunId, {
        name: runName ?? llm.id?.at(-1),
        run_type: "llm",
        inputs: { messages },
        serialized: llm,
        tags,
        metadata,
        invocation_params: extraParams,
      });
    }
    handleLLMEnd(output, runId) {
      return this.end(runId, output);
    }
    handleLLMError(err, runId) {
      return this.end(runId, undefined, err);
    }
    handleToolStart(tool, input, runId, parentRunId, tags, metadata, runName) {
      this.start(runId, parentRunId, {
        name: runName ?? tool.id?.at(-1),
        run_type: "tool",
        inputs: { input },
        serialized: tool,
        tags,
        metadata,
      });
    }
    handleToolEnd(output, runId) {
      return this.end(runId, { output });
    }
    handleToolError(err, runId) {
      return this.end(runId, undefined, err);
    }
  }

  /** Only the callback plumbing: a handler that does nothing with the events. */
  class NoopHandler extends BaseCallbackHandler {
    name = "berth_noop";
    handleChainStart() {}
    handleChainEnd() {}
    handleChatModelStart() {}
    handleLLMEnd() {}
    handleToolStart() {}
    handleToolEnd() {}
  }

  const metadata = {
    graph_id: "agent",
    assistant_id: randomUUID(),
    thread_id: randomUUID(),
    run_id: randomUUID(),
    user_id: "",
    run_attempt: 1,
    langgraph_version: "1.7.3",
    langgraph_api_version: "0.1.0",
    langgraph_plan: "developer",
    langgraph_host: "self-hosted",
    langgraph_api_url: "http://127.0.0.1/agents/probe",
  };
  const input = { messages: [{ role: "user", content: "What is (6 + 1) * 6?" }] };
  let leanShape = "";
  async function phase(mode) {
    process.env.LANGSMITH_TRACING = mode === "sdk" || mode === "server" ? "true" : "false";
    const callbacks =
      mode === "lean"
        ? [new LeanTracer()]
        : mode === "noop"
          ? [new NoopHandler()]
          : mode === "server"
            ? [...serverTracer.callbacks]
            : undefined;
    for (let i = 0; i < 10; i += 1) await graph.invoke(input, { metadata, callbacks });
    await sleep(600);
    const before = process.cpuUsage();
    for (let i = 0; i < RUNS; i += 1) await graph.invoke(input, { metadata, callbacks });
    await sleep(600); // the SDK's batches leave up to 250 ms after a run
    const used = process.cpuUsage(before);
    const lean = callbacks?.[0];
    if (lean instanceof LeanTracer && lean.traces !== RUNS + 10)
      throw new Error(`lean: ${lean.traces} traces`);
    if (lean instanceof LeanTracer)
      leanShape = `${(lean.runsSent / lean.traces).toFixed(1)} runs, ${(lean.sent / lean.traces).toFixed(1)} parts a trace`;
    return (used.user + used.system) / 1000 / RUNS;
  }
  console.log(
    `handler probe: ${RUNS} runs a phase, ${ROUNDS} rounds; load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}`,
  );
  const results = { off: [], sdk: [], lean: [], noop: [], server: [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    const order =
      round % 2 === 0 ? ["off", "sdk", "lean", "noop", "server"] : ["server", "noop", "lean", "sdk", "off"];
    for (const mode of order) results[mode].push(await phase(mode));
    console.log(
      `round ${round + 1}: ${Object.entries(results)
        .map(([m, v]) => `${m} ${v.at(-1).toFixed(2)}`)
        .join(", ")} ms CPU/run`,
    );
  }
  const med = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
  const off = med(results.off),
    sdk = med(results.sdk),
    lean = med(results.lean),
    noop = med(results.noop),
    server = med(results.server);
  console.log(
    `medians: off ${off.toFixed(2)}, SDK tracer ${sdk.toFixed(2)} (+${(sdk - off).toFixed(2)}), lean handler ${lean.toFixed(2)} (+${(lean - off).toFixed(2)}), no-op handler ${noop.toFixed(2)} (+${(noop - off).toFixed(2)}), agent server's tracer ${server.toFixed(2)} (+${(server - off).toFixed(2)}, ${(server / off).toFixed(2)}×) ms CPU/run (lean: ${leanShape}); load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}`,
  );
  sink.kill();
}
