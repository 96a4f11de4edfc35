// Traces of a tracing project: the list (filtered by status, agent thread and agent run) and one
// trace as a tree with a timing bar per run, and the selected run's inputs, outputs, tokens, error.
import { useState } from "preact/hooks";
import type { RunNode, Trace } from "../api/types.js";
import { ErrorBox, Loading, StatusBadge } from "../components/ui.js";
import { useSession } from "../context.js";
import { ago, duration, shortId, when } from "../format.js";
import { useInterval, useLoad } from "../hooks.js";
import { setQuery, useLocation } from "../router.js";

const STATUSES = ["success", "error", "pending"];

/** The current query with `name` set (or removed), as a relative link. */
function withQuery(query: URLSearchParams, name: string, value: string | null): string {
  const q = new URLSearchParams(query);
  if (value === null || value === "") q.delete(name);
  else q.set(name, value);
  const text = q.toString();
  return text ? `?${text}` : location.pathname;
}

function tokens(n: number | null | undefined): string {
  return n ? n.toLocaleString() : "";
}

/** A project's traces, newest first, and the one selected (`?trace=`; the only one of an agent run opens by itself). */
export function ProjectTraces({ projectId }: { projectId: string }) {
  const { client } = useSession();
  const { query } = useLocation();
  const status = query.get("status") ?? "";
  const threadId = query.get("thread_id") ?? "";
  const runId = query.get("run_id") ?? "";
  const traces = useLoad(
    () => client.traces(projectId, { status, threadId, runId }),
    [client, projectId, status, threadId, runId],
  );
  const stats = useLoad(() => client.traceStats(projectId), [client, projectId]);
  useInterval(
    () => {
      traces.reload();
      stats.reload();
    },
    5000,
    traces.data !== undefined,
  );
  const list = traces.data?.resources ?? [];
  const only = runId && list.length === 1 ? (list[0]?.trace_id ?? null) : null;
  const open = query.get("trace") ?? only;
  return (
    <div class="traces">
      <section class="card">
        <div class="title-row">
          <h2>Traces</h2>
          <select
            aria-label="Trace status"
            value={status}
            onChange={(e) => setQuery("status", (e.target as HTMLSelectElement).value)}
          >
            <option value="">Any status</option>
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
          {threadId && (
            <a class="tag" href={withQuery(query, "thread_id", null)} title="Remove the thread filter">
              thread {shortId(threadId)} ✕
            </a>
          )}
          {runId && (
            <a class="tag" href={withQuery(query, "run_id", null)} title="Remove the run filter">
              run {shortId(runId)} ✕
            </a>
          )}
          <button type="button" class="small" onClick={traces.reload}>
            Refresh
          </button>
        </div>
        {stats.data && (
          <p class="muted" id="trace-stats">
            {stats.data.traces} traces · {stats.data.errors} errors
            {stats.data.latency_p50_ms !== null &&
              ` · p50 ${duration(stats.data.latency_p50_ms)}, p99 ${duration(stats.data.latency_p99_ms ?? 0)}`}
            {` · ${stats.data.total_tokens.toLocaleString()} tokens`}
          </p>
        )}
        <ErrorBox error={traces.error} />
        {!traces.data && !traces.error && <Loading />}
        <table class="list" id="traces">
          <thead>
            <tr>
              <th>Trace</th>
              <th>Status</th>
              <th>Started</th>
              <th>Latency</th>
              <th>Tokens</th>
              <th>Runs</th>
              <th>Thread</th>
              <th>Agent run</th>
            </tr>
          </thead>
          <tbody>
            {list.map((t) => (
              <tr
                key={t.trace_id}
                data-trace={t.trace_id}
                data-tokens={t.total_tokens}
                class={t.trace_id === open ? "active" : ""}
              >
                <td>
                  <a href={withQuery(query, "trace", t.trace_id)}>{t.name ?? shortId(t.trace_id)}</a>
                </td>
                <td>
                  <StatusBadge status={t.status} />
                </td>
                <td title={t.start_time ? when(t.start_time) : ""}>
                  {t.start_time ? ago(t.start_time) : ""}
                </td>
                <td>{t.latency_ms === null ? "" : duration(t.latency_ms)}</td>
                <td title={`prompt ${t.prompt_tokens}, completion ${t.completion_tokens}`}>
                  {tokens(t.total_tokens)}
                </td>
                <td>{t.run_count}</td>
                <td class="mono">
                  {t.thread_id && (
                    <a href={withQuery(query, "thread_id", t.thread_id)}>{shortId(t.thread_id)}</a>
                  )}
                </td>
                <td class="mono">{t.run_id ? shortId(t.run_id) : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {traces.data && list.length === 0 && (
          <p class="empty">No traces{status || threadId || runId ? " match these filters" : " yet"}.</p>
        )}
      </section>
      {open ? <TraceView key={open} projectId={projectId} traceId={open} /> : null}
    </div>
  );
}

interface Row {
  node: RunNode;
  depth: number;
}

function flatten(node: RunNode, depth: number, out: Row[]): Row[] {
  out.push({ node, depth });
  for (const child of node.children) flatten(child, depth + 1, out);
  return out;
}

/** One trace: its totals, the run tree with timing bars, and the selected run's details. */
export function TraceView({ projectId, traceId }: { projectId: string; traceId: string }) {
  const { client } = useSession();
  const trace = useLoad(() => client.trace(projectId, traceId), [client, projectId, traceId]);
  const pending = trace.data !== undefined && trace.data.status === "pending";
  useInterval(trace.reload, 2000, pending);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  if (!trace.data) {
    return (
      <section class="card" id="trace">
        <ErrorBox error={trace.error} />
        {!trace.error && <Loading />}
      </section>
    );
  }
  const t: Trace = trace.data;
  const rows = [t.root, ...t.orphans]
    .filter((n): n is RunNode => n !== null)
    .flatMap((n) => flatten(n, 0, []));
  const starts = rows.map((r) => (r.node.start_time ? Date.parse(r.node.start_time) : Number.NaN));
  const ends = rows.map((r) => (r.node.end_time ? Date.parse(r.node.end_time) : Number.NaN));
  const t0 = Math.min(...starts.filter(Number.isFinite));
  const t1 = Math.max(...ends.filter(Number.isFinite), ...starts.filter(Number.isFinite));
  const span = Math.max(1, t1 - t0);
  const selected = rows.find((r) => r.node.id === selectedId)?.node ?? rows[0]?.node;
  return (
    <section class="card" id="trace" data-trace={t.trace_id}>
      <div class="title-row">
        <h2>{t.root?.name ?? "Trace"}</h2>
        <StatusBadge status={t.status} />
        <span class="muted">
          {t.latency_ms === null ? "running" : duration(t.latency_ms)} · {t.run_count} runs
          {t.total_tokens ? ` · ${t.total_tokens.toLocaleString()} tokens` : ""}
        </span>
      </div>
      <dl class="props">
        <dt>Trace</dt>
        <dd class="mono">{t.trace_id}</dd>
        {t.thread_id && (
          <>
            <dt>Thread</dt>
            <dd class="mono">{t.thread_id}</dd>
          </>
        )}
        {t.run_id && (
          <>
            <dt>Agent run</dt>
            <dd class="mono">{t.run_id}</dd>
          </>
        )}
        {t.graph_id && (
          <>
            <dt>Graph</dt>
            <dd>{t.graph_id}</dd>
          </>
        )}
      </dl>
      <div class="trace-split">
        <table class="list run-tree" id="run-tree">
          <thead>
            <tr>
              <th>Run</th>
              <th class="timing">Timing</th>
              <th>Latency</th>
              <th>Tokens</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ node, depth }, i) => {
              const start = starts[i] ?? Number.NaN;
              const end = ends[i] ?? Number.NaN;
              const left = Number.isFinite(start) ? ((start - t0) / span) * 100 : 0;
              const width =
                Number.isFinite(start) && Number.isFinite(end) ? ((end - start) / span) * 100 : 100 - left;
              return (
                <tr
                  key={node.id}
                  data-run={node.name ?? ""}
                  data-run-type={node.run_type ?? ""}
                  class={`${node.id === selected?.id ? "active" : ""} ${node.status}`}
                  onClick={() => setSelectedId(node.id)}
                >
                  <td style={{ paddingLeft: `${0.4 + depth * 1.1}rem` }}>
                    <button type="button" class="link" onClick={() => setSelectedId(node.id)}>
                      {node.name ?? shortId(node.id)}
                    </button>{" "}
                    <span class="tag">{node.run_type}</span>
                    {node.status === "error" && <span class="badge fail">error</span>}
                  </td>
                  <td class="timing">
                    <span
                      class={`bar ${node.status}`}
                      style={{
                        marginLeft: `${left.toFixed(2)}%`,
                        width: `${Math.max(0.6, width).toFixed(2)}%`,
                      }}
                    />
                  </td>
                  <td>{node.latency_ms === null ? "…" : duration(node.latency_ms)}</td>
                  <td>{tokens(node.total_tokens)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {selected && <RunDetail run={selected} />}
      </div>
    </section>
  );
}

/** The selected run: error, tokens, inputs, outputs, metadata. */
function RunDetail({ run }: { run: RunNode }) {
  return (
    <div class="run-detail" id="run-detail" data-run={run.name ?? ""}>
      <h3>
        {run.name} <span class="tag">{run.run_type}</span>
      </h3>
      <p class="muted">
        {run.start_time ? when(run.start_time) : ""}
        {run.latency_ms !== null ? ` · ${duration(run.latency_ms)}` : ""}
        {run.total_tokens
          ? ` · ${run.total_tokens} tokens (prompt ${run.prompt_tokens ?? 0}, completion ${run.completion_tokens ?? 0})`
          : ""}
      </p>
      {run.error && <pre class="error run-error">{run.error}</pre>}
      <h4>Inputs</h4>
      <pre class="json">{JSON.stringify(run.inputs, null, 2)}</pre>
      <h4>Outputs</h4>
      <pre class="json">{JSON.stringify(run.outputs, null, 2)}</pre>
      {Object.keys(run.metadata).length > 0 && (
        <>
          <h4>Metadata</h4>
          <pre class="json">{JSON.stringify(run.metadata, null, 2)}</pre>
        </>
      )}
    </div>
  );
}
