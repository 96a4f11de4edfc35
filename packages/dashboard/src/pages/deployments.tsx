import { useEffect, useState } from "preact/hooks";
import { agentUrl } from "../api/control-plane.js";
import type { Deployment } from "../api/types.js";
import { ErrorBox, Loading, StatusBadge } from "../components/ui.js";
import { useSession } from "../context.js";
import { ago } from "../format.js";
import { useInterval, useLoad } from "../hooks.js";
import { setQuery, useLocation } from "../router.js";
import { useRevisionStatuses } from "./revision-statuses.js";

const STATUS_FILTERS = [
  "DEPLOYED",
  "BUILDING",
  "DEPLOYING",
  "QUEUED",
  "AWAITING_BUILD",
  "BUILD_FAILED",
  "DEPLOY_FAILED",
  "CREATE_FAILED",
  "INTERRUPTED",
];
const MAX_ROWS = 2000;

/** Every deployment of the workspace whose name contains `name` (pages of 100). */
async function listAll(client: ReturnType<typeof useSession>["client"], name: string): Promise<Deployment[]> {
  const all: Deployment[] = [];
  for (let offset = 0; all.length < MAX_ROWS; ) {
    const page = await client.deployments({ nameContains: name, limit: 100, offset });
    all.push(...page.resources);
    if (page.resources.length < 100) break;
    offset = page.offset;
  }
  return all;
}

/** The deployments list: name, source, latest revision status, agent URL, updated time; filters. */
export function DeploymentsList() {
  const { client } = useSession();
  const { query } = useLocation();
  const name = query.get("name") ?? "";
  const status = query.get("status") ?? "";
  const [nameInput, setNameInput] = useState(name);
  // The name filter goes to the API (name_contains), typed input settles for 250 ms first.
  useEffect(() => {
    const t = setTimeout(() => nameInput !== name && setQuery("name", nameInput), 250);
    return () => clearTimeout(t);
  }, [nameInput]);
  const list = useLoad(() => listAll(client, name), [client, name]);
  useInterval(list.reload, 10_000);
  const statuses = useRevisionStatuses(client, list.data);
  const rows = (list.data ?? []).filter((d) => !status || statuses.get(d.id) === status);

  return (
    <section>
      <div class="title-row">
        <h1>Deployments</h1>
        <a class="button primary" href="/deployments/new">
          New deployment
        </a>
      </div>
      <div class="filters">
        <input
          type="search"
          name="name-filter"
          placeholder="Filter by name"
          value={nameInput}
          onInput={(e) => setNameInput((e.target as HTMLInputElement).value)}
        />
        <select
          name="status-filter"
          aria-label="Filter by status"
          value={status}
          onChange={(e) => setQuery("status", (e.target as HTMLSelectElement).value)}
        >
          <option value="">Any status</option>
          {STATUS_FILTERS.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <span class="muted">{list.data ? `${rows.length} of ${list.data.length}` : ""}</span>
      </div>
      <ErrorBox error={list.error} />
      {!list.data && !list.error ? (
        <Loading />
      ) : list.data?.length === 0 ? (
        <p class="empty">
          No deployments{name ? ` named like “${name}”` : ""}. <a href="/deployments/new">Create one</a>.
        </p>
      ) : (
        <table class="list" id="deployments">
          <thead>
            <tr>
              <th>Name</th>
              <th>Source</th>
              <th>Latest revision</th>
              <th>Agent URL</th>
              <th>Updated</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((d) => (
              <tr key={d.id} data-deployment={d.name}>
                <td>
                  <a href={`/deployments/${d.id}`}>{d.display_name ?? d.name}</a>
                </td>
                <td>{d.source}</td>
                <td>
                  <StatusBadge status={d.latest_revision_id ? statuses.get(d.id) : "none"} />
                </td>
                <td class="mono truncate">
                  {d.active_revision_id || statuses.get(d.id) === "DEPLOYED" ? agentUrl(d) : "—"}
                </td>
                <td title={d.updated_at}>{ago(d.updated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
