// One trace: its totals, the run tree with a timing bar per run, and the selected run's details
// (messages as a conversation with the raw JSON a click away, tags, tokens, cost, feedback).
import { useState } from "preact/hooks";
import type { RunNode, Trace } from "../api/types.js";
import { Conversation } from "../components/conversation.js";
import { ErrorBox, Loading, StatusBadge } from "../components/ui.js";
import { useSession } from "../context.js";
import { cost, duration, shortId, when } from "../format.js";
import { useInterval, useLoad } from "../hooks.js";
import { setQuery } from "../router.js";
import { conversationOf } from "./trace-messages.js";

function tokens(n: number | null | undefined): string {
  return n ? n.toLocaleString() : "";
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

function Tags({ tags }: { tags: readonly string[] | undefined }) {
  if (!tags || tags.length === 0) return null;
  return (
    <span class="run-tags">
      {tags.map((t) => (
        <span key={t} class="tag run-tag" data-tag={t}>
          {t}
        </span>
      ))}
    </span>
  );
}

/** One trace: its totals, the run tree with timing bars, and the selected run's details. */
export function TraceView({
  projectId,
  traceId,
  runId = null,
}: {
  projectId: string;
  traceId: string;
  /** The run selected first (`?selected_run=`; else the root). */
  runId?: string | null;
}) {
  const { client } = useSession();
  const trace = useLoad(() => client.trace(projectId, traceId), [client, projectId, traceId]);
  const pending = trace.data !== undefined && trace.data.root?.status === "pending";
  useInterval(trace.reload, 2000, pending);
  const [selectedId, setSelectedId] = useState<string | null>(runId);
  // The selection goes into the URL, so a link opens the same run.
  const select = (id: string) => {
    setSelectedId(id);
    setQuery("selected_run", id);
  };
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
  const totalCost = cost(t.total_cost);
  return (
    <section class="card" id="trace" data-trace={t.trace_id} data-status={t.status}>
      <div class="title-row">
        <h2>{t.root?.name ?? "Trace"}</h2>
        <StatusBadge status={t.status} />
        <span class="muted">
          {t.latency_ms === null ? "running" : duration(t.latency_ms)} · {t.run_count} runs
          {t.total_tokens ? ` · ${t.total_tokens.toLocaleString()} tokens` : ""}
          {totalCost ? ` · ${totalCost}` : ""}
          {t.error_count ? ` · ${t.error_count} failed run${t.error_count > 1 ? "s" : ""}` : ""}
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
                  onClick={() => select(node.id)}
                >
                  <td style={{ paddingLeft: `${0.4 + depth * 1.1}rem` }}>
                    <button type="button" class="link" onClick={() => select(node.id)}>
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
        {selected && <RunDetail key={selected.id} run={selected} />}
      </div>
    </section>
  );
}

/** Inputs or outputs: a conversation when they hold messages (raw JSON behind a button), else JSON. */
function RunValue({ label, value }: { label: string; value: unknown }) {
  const messages = conversationOf(value);
  const [raw, setRaw] = useState(false);
  return (
    <div class="run-value" data-part={label.toLowerCase()}>
      <div class="title-row">
        <h4>{label}</h4>
        {messages && (
          <button type="button" class="small raw-toggle" aria-pressed={raw} onClick={() => setRaw(!raw)}>
            {raw ? "Conversation" : "Raw JSON"}
          </button>
        )}
      </div>
      {messages && !raw ? (
        <Conversation messages={messages} />
      ) : (
        <pre class="json">{JSON.stringify(value, null, 2)}</pre>
      )}
    </div>
  );
}

/** Feedback on the run (nothing when there is none). */
function RunFeedback({ runId }: { runId: string }) {
  const { client } = useSession();
  const feedback = useLoad(() => client.feedback(runId), [client, runId]);
  if (feedback.error) return <ErrorBox error={feedback.error} />;
  const list = feedback.data ?? [];
  if (list.length === 0) return null;
  return (
    <div class="run-feedback" id="run-feedback">
      <h4>Feedback</h4>
      <ul class="feedback">
        {list.map((f) => (
          <li key={f.id} data-key={f.key}>
            <b>{f.key}</b>
            {f.score !== null && <span class="tag">score {f.score}</span>}
            {f.value !== null && f.value !== undefined && (
              <span class="tag">{typeof f.value === "string" ? f.value : JSON.stringify(f.value)}</span>
            )}
            {f.comment && <span class="comment">{f.comment}</span>}
            <span class="muted">{when(f.created_at)}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The selected run: error, tokens, cost, tags, feedback, inputs, outputs, metadata. */
function RunDetail({ run }: { run: RunNode }) {
  const runCost = cost(run.total_cost);
  return (
    <div class="run-detail" id="run-detail" data-run={run.name ?? ""}>
      <h3>
        {run.name} <span class="tag">{run.run_type}</span> <StatusBadge status={run.status} />
      </h3>
      <p class="muted">
        {run.start_time ? when(run.start_time) : ""}
        {run.latency_ms !== null ? ` · ${duration(run.latency_ms)}` : ""}
        {run.total_tokens
          ? ` · ${run.total_tokens} tokens (prompt ${run.prompt_tokens ?? 0}, completion ${run.completion_tokens ?? 0})`
          : ""}
      </p>
      {runCost && (
        <p class="run-cost" id="run-cost">
          Cost {runCost}
          {cost(run.prompt_cost) &&
            ` (prompt ${cost(run.prompt_cost)}, completion ${cost(run.completion_cost)})`}
        </p>
      )}
      <Tags tags={run.tags} />
      {run.error && <pre class="error run-error">{run.error}</pre>}
      <RunFeedback runId={run.id} />
      <RunValue label="Inputs" value={run.inputs} />
      <RunValue label="Outputs" value={run.outputs} />
      {Object.keys(run.metadata).length > 0 && (
        <>
          <h4>Metadata</h4>
          <pre class="json">{JSON.stringify(run.metadata, null, 2)}</pre>
        </>
      )}
    </div>
  );
}
