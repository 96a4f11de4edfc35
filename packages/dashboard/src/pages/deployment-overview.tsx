import { useMemo, useState } from "preact/hooks";
import { agentClient, preferredAssistant } from "../api/agent.js";
import { agentUrl } from "../api/control-plane.js";
import type { Revision } from "../api/types.js";
import { SecretsEditor } from "../components/secrets-editor.js";
import { AgentUrl } from "../components/snippets.js";
import { ErrorBox, StatusBadge } from "../components/ui.js";
import { useSession } from "../context.js";
import { ago, duration, isSettled, shortId, when } from "../format.js";
import { useLoad } from "../hooks.js";
import { navigate } from "../router.js";
import type { DeploymentView } from "./deployment.js";
import { declaredSpec, SPEC_DEFAULTS_NOTE } from "./resource-spec-view.js";

/** A revision's duration: to its last change when settled, else until now. */
function revisionDuration(r: Revision, now: number): string {
  const start = Date.parse(r.created_at);
  return duration((isSettled(r.status) ? Date.parse(r.updated_at) : now) - start);
}

/** The agent URL and its snippets, naming the graphs the serving revision really has. */
function ServingAgentUrl({ deployment: d }: { deployment: DeploymentView["deployment"] }) {
  const { client } = useSession();
  const agent = useMemo(() => agentClient(client, d.id), [client, d.id]);
  const assistants = useLoad(() => agent.assistants.search({ limit: 100 }), [agent, d.active_revision_id]);
  const preferred = preferredAssistant(assistants.data)?.graph_id;
  const graphs = [...new Set([preferred, ...(assistants.data ?? []).map((a) => a.graph_id)])].filter(
    (g): g is string => g !== undefined,
  );
  return (
    <>
      <AgentUrl url={agentUrl(d)} graphs={graphs} />
      {assistants.error !== undefined && (
        <p class="muted">The graphs could not be listed: {String(assistants.error)}</p>
      )}
    </>
  );
}

/** Deployment overview: agent URL and snippets, revisions, secrets, source and resources, delete. */
export function DeploymentOverview({ deployment: d, revisions, reload }: DeploymentView) {
  const { client } = useSession();
  const [error, setError] = useState<unknown>(null);
  const act = async (action: () => Promise<unknown>) => {
    setError(null);
    try {
      await action();
      reload();
    } catch (e) {
      setError(e);
    }
  };
  const now = Date.now();
  return (
    <div class="overview">
      <section class="card">
        <h2>Agent URL</h2>
        {d.active_revision_id ? (
          <ServingAgentUrl deployment={d} />
        ) : (
          <p class="muted">No revision is serving yet.</p>
        )}
      </section>

      <section class="card">
        <div class="title-row">
          <h2>Revisions</h2>
          <button type="button" class="small" onClick={() => act(() => client.createRevision(d.id))}>
            Redeploy latest
          </button>
        </div>
        <ErrorBox error={error} />
        <ol class="timeline" id="revisions">
          {revisions.map((r) => (
            <li key={r.id} data-revision={r.id} data-status={r.status}>
              <StatusBadge status={r.status} />
              <span class="mono">{shortId(r.id)}</span>
              {r.id === d.active_revision_id && <span class="tag">serving</span>}
              <span title={when(r.created_at)}>{ago(r.created_at, now)}</span>
              <span class="muted">{revisionDuration(r, now)}</span>
              <span class="spacer" />
              <a href={`/deployments/${d.id}/logs?revision=${r.id}&type=build`}>Build log</a>
              <a href={`/deployments/${d.id}/logs?revision=${r.id}&type=deploy`}>Deploy log</a>
              {isSettled(r.status) ? (
                <button type="button" class="small" onClick={() => act(() => client.redeploy(d.id, r.id))}>
                  Redeploy
                </button>
              ) : (
                <button type="button" class="small" onClick={() => act(() => client.interrupt(d.id, r.id))}>
                  Interrupt
                </button>
              )}
            </li>
          ))}
        </ol>
        {revisions.length === 0 && <p class="muted">No revisions yet.</p>}
      </section>

      <section class="card">
        <h2>Secrets</h2>
        <SecretsEditor
          key={d.latest_revision_id}
          secrets={d.secrets}
          onSave={async (secrets) => {
            await client.patchDeployment(d.id, { secrets });
            reload();
          }}
        />
      </section>

      <section class="card">
        <h2>Source and resources</h2>
        <dl class="props">
          <dt>Source</dt>
          <dd>{d.source}</dd>
          {d.source_config.template_id && (
            <>
              <dt>Template</dt>
              <dd>{d.source_config.template_id}</dd>
            </>
          )}
          {d.source_config.repo_url && (
            <>
              <dt>Repository</dt>
              <dd class="mono">
                {d.source_config.repo_url} @ {d.source_revision_config.repo_ref}
                {d.source_revision_config.repo_commit_sha &&
                  ` (${d.source_revision_config.repo_commit_sha.slice(0, 10)})`}
              </dd>
            </>
          )}
          {d.source_revision_config.graph_config_path && (
            <>
              <dt>Graph configuration</dt>
              <dd class="mono">{d.source_revision_config.graph_config_path}</dd>
            </>
          )}
          <dt>Created</dt>
          <dd>{when(d.created_at)}</dd>
          <dt>Deployment id</dt>
          <dd class="mono">{d.id}</dd>
        </dl>
        <h3>Resource spec</h3>
        <pre class="json">
          {JSON.stringify(
            declaredSpec(d.source_config.resource_spec) ?? { note: "defaults of the local runtime" },
            null,
            2,
          )}
        </pre>
        {d.source_config.resource_spec && <p class="muted">{SPEC_DEFAULTS_NOTE}</p>}
      </section>

      <DeleteDeployment name={d.name} onDelete={() => client.deleteDeployment(d.id)} />
    </div>
  );
}

/** Delete with confirmation: the name must be typed. */
function DeleteDeployment({ name, onDelete }: { name: string; onDelete(): Promise<void> }) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const [error, setError] = useState<unknown>(null);
  if (!open) {
    return (
      <section class="card danger">
        <button type="button" class="danger" onClick={() => setOpen(true)}>
          Delete deployment
        </button>
      </section>
    );
  }
  return (
    <section class="card danger" role="dialog" aria-label="Confirm deletion">
      <p>
        This stops the agent server and deletes its threads and runs. Type <b>{name}</b> to confirm.
      </p>
      <input
        name="confirm-name"
        value={typed}
        onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
      />
      <ErrorBox error={error} />
      <div class="actions">
        <button
          type="button"
          class="danger"
          disabled={typed !== name}
          onClick={async () => {
            try {
              await onDelete();
              navigate("/");
            } catch (e) {
              setError(e);
            }
          }}
        >
          Delete {name}
        </button>
        <button type="button" class="small" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </section>
  );
}
