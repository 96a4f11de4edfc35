import { useMemo, useState } from "preact/hooks";
import { agentClient } from "../api/agent.js";
import { CheckpointEditor } from "../components/checkpoint-editor.js";
import { MessageList, type WireMessage } from "../components/messages.js";
import type { JsonSchema } from "../components/typed-form.js";
import { ErrorBox, Loading, StatusBadge } from "../components/ui.js";
import { useSession } from "../context.js";
import { ago, shortId, when } from "../format.js";
import { useLoad } from "../hooks.js";
import { setQuery, useLocation } from "../router.js";
import type { DeploymentView } from "./deployment.js";
import { firstMessageOf, graphOf } from "./thread-summary.js";

const THREAD_STATUSES = ["idle", "busy", "interrupted", "error"];

/** The agent's assistants, threads (search, state, messages, checkpoints) and runs. */
export function AgentThreads({ deployment }: DeploymentView) {
  const { client } = useSession();
  const agent = useMemo(() => agentClient(client, deployment.id), [client, deployment.id]);
  const { query } = useLocation();
  const status = query.get("status") ?? "";
  const selected = query.get("thread");
  const assistants = useLoad(() => agent.assistants.search({ limit: 50 }), [agent]);
  const threads = useLoad(
    () =>
      agent.threads.search({
        limit: 50,
        sortBy: "updated_at",
        sortOrder: "desc",
        ...(status ? { status: status as "idle" } : {}),
      }),
    [agent, status],
  );
  if (!deployment.active_revision_id) return <p class="muted">No revision is serving yet.</p>;
  return (
    <div class="agent">
      <section class="card">
        <h2>Assistants</h2>
        <ErrorBox error={assistants.error} />
        <table class="list" id="assistants">
          <thead>
            <tr>
              <th>Name</th>
              <th>Graph</th>
              <th>Assistant id</th>
              <th>Version</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {assistants.data?.map((a) => (
              <tr key={a.assistant_id}>
                <td>{a.name}</td>
                <td>{a.graph_id}</td>
                <td class="mono">{a.assistant_id}</td>
                <td>{a.version}</td>
                <td>
                  <a href={`/deployments/${deployment.id}/chat?assistant=${a.assistant_id}`}>Chat</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <div class="split">
        <section class="card">
          <div class="title-row">
            <h2>Threads</h2>
            <select
              aria-label="Thread status"
              value={status}
              onChange={(e) => setQuery("status", (e.target as HTMLSelectElement).value)}
            >
              <option value="">Any status</option>
              {THREAD_STATUSES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
            <button type="button" class="small" onClick={threads.reload}>
              Refresh
            </button>
          </div>
          <ErrorBox error={threads.error} />
          {!threads.data && !threads.error && <Loading />}
          <ul class="threads" id="threads">
            {threads.data?.map((t) => (
              <li key={t.thread_id} class={t.thread_id === selected ? "active" : ""}>
                <a
                  href={`?thread=${t.thread_id}${status ? `&status=${status}` : ""}`}
                  class="thread-title"
                  title={t.thread_id}
                >
                  {firstMessageOf(t.values) ?? <span class="mono">{shortId(t.thread_id)}</span>}
                </a>
                {graphOf(t.metadata) && <span class="tag">{graphOf(t.metadata)}</span>}
                <StatusBadge status={t.status} />
                <span class="muted">{ago(t.updated_at)}</span>
              </li>
            ))}
          </ul>
          {threads.data?.length === 0 && <p class="muted">No threads.</p>}
        </section>
        {selected ? <ThreadDetail agent={agent} threadId={selected} deploymentId={deployment.id} /> : null}
      </div>
    </div>
  );
}

function ThreadDetail(props: {
  agent: ReturnType<typeof agentClient>;
  threadId: string;
  deploymentId: string;
}) {
  const { agent, threadId } = props;
  const [view, setView] = useState<"messages" | "state" | "checkpoints" | "runs">("messages");
  const [editing, setEditing] = useState<string | null>(null);
  const data = useLoad(async () => {
    const [state, history, runs, thread] = await Promise.all([
      agent.threads.getState(threadId),
      agent.threads.getHistory(threadId, { limit: 20 }),
      agent.runs.list(threadId, { limit: 20 }),
      agent.threads.get(threadId),
    ]);
    // The assistant a fork runs with: the thread's last run's, else the one its metadata names.
    const assistantId =
      runs[0]?.assistant_id ??
      ((thread.metadata as { assistant_id?: string } | null)?.assistant_id || undefined);
    // The state schema types the checkpoint editor's fields; without it the values' own shapes do.
    const schemas = assistantId ? await agent.assistants.getSchemas(assistantId).catch(() => null) : null;
    return {
      state,
      history,
      runs,
      assistantId,
      stateSchema: (schemas?.state_schema ?? null) as JsonSchema | null,
    };
  }, [agent, threadId]);
  const edited = editing
    ? data.data?.history.find((s) => s.checkpoint?.checkpoint_id === editing)
    : undefined;
  const values = (data.data?.state.values ?? {}) as { messages?: WireMessage[] };
  return (
    <section class="card thread" id="thread-detail">
      <div class="title-row">
        <h2 class="mono">{threadId}</h2>
        <a href={`/deployments/${props.deploymentId}/chat?thread=${threadId}`}>Continue in chat</a>
      </div>
      <div class="segmented">
        {(["messages", "state", "checkpoints", "runs"] as const).map((v) => (
          <button
            key={v}
            type="button"
            class={`small${v === view ? " active" : ""}`}
            onClick={() => setView(v)}
          >
            {v}
          </button>
        ))}
        <button type="button" class="small" onClick={data.reload}>
          Refresh
        </button>
      </div>
      <ErrorBox error={data.error} />
      {!data.data ? (
        !data.error && <Loading />
      ) : view === "messages" ? (
        <MessageList messages={values.messages ?? []} />
      ) : view === "state" ? (
        <>
          <p>
            next: <code>{JSON.stringify(data.data.state.next)}</code> · checkpoint{" "}
            <code>{data.data.state.checkpoint?.checkpoint_id}</code>
          </p>
          <pre class="json">{JSON.stringify(data.data.state.values, null, 2)}</pre>
        </>
      ) : view === "checkpoints" ? (
        <>
          <table class="list" id="checkpoints">
            <thead>
              <tr>
                <th>Step</th>
                <th>Checkpoint</th>
                <th>Next</th>
                <th>Source</th>
                <th>Created</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {data.data.history.map((s) => (
                <tr
                  key={s.checkpoint?.checkpoint_id}
                  data-checkpoint={s.checkpoint?.checkpoint_id}
                  data-step={String((s.metadata as { step?: number } | null)?.step ?? "")}
                  class={s.checkpoint?.checkpoint_id === editing ? "active" : ""}
                >
                  <td>{String((s.metadata as { step?: number } | null)?.step ?? "")}</td>
                  <td class="mono">{s.checkpoint?.checkpoint_id?.slice(0, 13)}</td>
                  <td>{s.next.join(", ")}</td>
                  <td>{String((s.metadata as { source?: string } | null)?.source ?? "")}</td>
                  <td>{s.created_at ? when(s.created_at) : ""}</td>
                  <td>
                    {s.checkpoint?.checkpoint_id && (
                      <button
                        type="button"
                        class="small"
                        onClick={() => setEditing(s.checkpoint?.checkpoint_id ?? null)}
                      >
                        Edit
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {edited?.checkpoint?.checkpoint_id && (
            <CheckpointEditor
              key={edited.checkpoint.checkpoint_id}
              agent={agent}
              threadId={threadId}
              checkpointId={edited.checkpoint.checkpoint_id}
              values={(edited.values ?? {}) as Record<string, unknown>}
              stateSchema={data.data.stateSchema}
              assistantId={data.data.assistantId}
              onDone={() => {
                setEditing(null);
                setView("messages");
                data.reload();
              }}
              onCancel={() => setEditing(null)}
            />
          )}
        </>
      ) : (
        <table class="list" id="runs">
          <thead>
            <tr>
              <th>Run</th>
              <th>Status</th>
              <th>Assistant</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {data.data.runs.map((r) => (
              <tr key={r.run_id}>
                <td class="mono">{shortId(r.run_id)}</td>
                <td>
                  <StatusBadge status={r.status} />
                </td>
                <td class="mono">{shortId(r.assistant_id)}</td>
                <td>{when(r.created_at)}</td>
                <td>
                  <a href={`/deployments/${props.deploymentId}/traces?run_id=${r.run_id}`}>Trace</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
