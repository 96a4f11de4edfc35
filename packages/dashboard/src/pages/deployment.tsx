import type { Deployment, Revision } from "../api/types.js";
import { StudioLink } from "../components/studio-link.js";
import { ErrorBox, Loading, StatusBadge, Tabs } from "../components/ui.js";
import { useSession } from "../context.js";
import { isSettled, shortId } from "../format.js";
import { useInterval, useLoad } from "../hooks.js";
import { AgentChat } from "./agent-chat.js";
import { AgentMetrics } from "./agent-metrics.js";
import { AgentThreads } from "./agent-threads.js";
import { DeploymentLogs } from "./deployment-logs.js";
import { DeploymentOverview } from "./deployment-overview.js";
import { DeploymentTraces } from "./tracing-projects.js";

/** What a deployment's tabs receive. */
export interface DeploymentView {
  deployment: Deployment;
  revisions: Revision[];
  /** Reloads the deployment and its revisions (after an action). */
  reload(): void;
}

const TABS = [
  { id: "overview", label: "Overview" },
  { id: "logs", label: "Logs" },
  { id: "threads", label: "Threads & runs" },
  { id: "traces", label: "Traces" },
  { id: "chat", label: "Chat" },
  { id: "metrics", label: "Metrics" },
];

/** A deployment: overview (revisions, secrets, URL), logs, the agent's threads, traces, chat and metrics. */
export function DeploymentPage({ id, tab }: { id: string; tab: string }) {
  const { client } = useSession();
  const loaded = useLoad(async () => {
    const [deployment, revisions] = await Promise.all([client.deployment(id), client.revisions(id)]);
    return { deployment, revisions: revisions.resources };
  }, [client, id]);
  const latest = loaded.data?.revisions[0];
  // Fast while a revision is in progress, slow otherwise.
  const busy = latest !== undefined && !isSettled(latest.status);
  useInterval(loaded.reload, busy ? 1500 : 10_000, loaded.data !== undefined);
  if (!loaded.data) {
    return (
      <section>
        <p>
          <a href="/">← Deployments</a>
        </p>
        {loaded.error ? <ErrorBox error={loaded.error} /> : <Loading />}
      </section>
    );
  }
  const view: DeploymentView = { ...loaded.data, reload: loaded.reload };
  const d = view.deployment;
  return (
    <section>
      <p>
        <a href="/">← Deployments</a>
      </p>
      <div class="title-row">
        <h1>{d.display_name ?? d.name}</h1>
        <span class="muted">latest revision</span>
        <StatusBadge status={latest?.status} />
        <span class="muted" id="serving">
          {/* What answers calls now: a failed newest revision leaves the previous one serving. */}
          {d.source} ·{" "}
          {d.active_revision_id
            ? `serving revision ${shortId(d.active_revision_id)}`
            : "no revision serving yet"}
          {d.status !== "READY" && ` · deployment ${d.status}`}
        </span>
        {d.active_revision_id && <StudioLink deploymentId={d.id} />}
      </div>
      <ErrorBox error={loaded.error} />
      <Tabs
        current={tab}
        tabs={TABS.map((t) => ({
          ...t,
          href: `/deployments/${d.id}${t.id === "overview" ? "" : `/${t.id}`}`,
        }))}
      />
      {tab === "overview" && <DeploymentOverview {...view} />}
      {tab === "logs" && <DeploymentLogs {...view} />}
      {tab === "threads" && <AgentThreads {...view} />}
      {tab === "traces" && <DeploymentTraces {...view} />}
      {tab === "chat" && <AgentChat {...view} />}
      {tab === "metrics" && <AgentMetrics {...view} />}
      {!TABS.some((t) => t.id === tab) && <p>No such tab.</p>}
    </section>
  );
}
