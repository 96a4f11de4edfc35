// Traces of a tracing project: where to send them, charts over a chosen range, the list (search
// across every run's text, filters by status, agent thread and agent run, pages) and the trace
// selected (pages/trace-view.tsx).
import { useEffect, useState } from "preact/hooks";
import { ErrorBox, Loading, StatusBadge } from "../components/ui.js";
import { useSession } from "../context.js";
import { ago, cost, duration, shortId, when } from "../format.js";
import { useInterval, useLoad } from "../hooks.js";
import { setQuery, useLocation } from "../router.js";
import { TraceCharts } from "./trace-charts.js";
import { TraceView } from "./trace-view.js";

const STATUSES = ["success", "error", "pending"];
const PAGE = 50;

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
  const text = query.get("q") ?? "";
  const offset = Number(query.get("offset") ?? 0) || 0;
  const traces = useLoad(
    () => client.traces(projectId, { status, threadId, runId, text, limit: PAGE, offset }),
    [client, projectId, status, threadId, runId, text, offset],
  );
  // The search box edits freely; the query (and the request) follows once typing pauses.
  const [textInput, setTextInput] = useState(text);
  useEffect(() => setTextInput(text), [text]);
  useEffect(() => {
    if (textInput.trim() === text) return;
    const id = setTimeout(() => {
      setQuery("offset", null);
      setQuery("q", textInput.trim());
    }, 300);
    return () => clearTimeout(id);
  }, [textInput]);
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
  // Opening another trace forgets the run selected in this one.
  const traceQuery = new URLSearchParams(query);
  traceQuery.delete("selected_run");
  return (
    <div class="traces">
      <TraceCharts projectId={projectId} />
      <section class="card">
        <div class="title-row">
          <h2>Traces</h2>
        </div>
        <div class="filters">
          <input
            type="search"
            name="trace-search"
            placeholder="Search names, metadata, inputs, outputs"
            aria-label="Search traces"
            value={textInput}
            onInput={(e) => setTextInput((e.target as HTMLInputElement).value)}
          />
          <select
            aria-label="Trace status"
            value={status}
            onChange={(e) => {
              setQuery("offset", null);
              setQuery("status", (e.target as HTMLSelectElement).value);
            }}
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
              <th>Cost</th>
              <th>Runs</th>
              <th>Tags</th>
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
                data-status={t.status}
                class={t.trace_id === open ? "active" : ""}
              >
                <td>
                  <a href={withQuery(traceQuery, "trace", t.trace_id)}>{t.name ?? shortId(t.trace_id)}</a>
                </td>
                <td title={t.error_count ? `${t.error_count} failed run(s)` : ""}>
                  <StatusBadge status={t.status} />
                </td>
                <td title={t.start_time ? when(t.start_time) : ""}>
                  {t.start_time ? ago(t.start_time) : ""}
                </td>
                <td>{t.latency_ms === null ? "" : duration(t.latency_ms)}</td>
                <td title={`prompt ${t.prompt_tokens}, completion ${t.completion_tokens}`}>
                  {tokens(t.total_tokens)}
                </td>
                <td>{cost(t.total_cost)}</td>
                <td>{t.run_count}</td>
                <td>
                  {(t.tags ?? []).map((tag) => (
                    <span key={tag} class="tag">
                      {tag}
                    </span>
                  ))}
                </td>
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
          <p class="empty">
            No traces{status || threadId || runId || text ? " match these filters" : " yet"}.
          </p>
        )}
        {(offset > 0 || list.length === PAGE) && (
          <div class="pager">
            <button
              type="button"
              class="small"
              disabled={offset === 0}
              onClick={() => setQuery("offset", offset > PAGE ? String(offset - PAGE) : null)}
            >
              Newer
            </button>
            <span class="muted">
              {offset + 1}–{offset + list.length}
            </span>
            <button
              type="button"
              class="small"
              disabled={list.length < PAGE}
              onClick={() => setQuery("offset", String(offset + PAGE))}
            >
              Older
            </button>
          </div>
        )}
      </section>
      {open ? (
        <TraceView key={open} projectId={projectId} traceId={open} runId={query.get("selected_run")} />
      ) : null}
    </div>
  );
}
