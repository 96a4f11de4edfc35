import { useEffect, useState } from "preact/hooks";
import { LANGSMITH_API } from "../api/control-plane.js";
import { ErrorBox } from "../components/ui.js";
import { useSession } from "../context.js";
import { navigate, useLocation } from "../router.js";

/**
 * `/o/<tenant>/projects/p/<project>/r/<run>[?trace_id=]`, a run's URL as LangSmith's `app_path`
 * spells it (what the SDK's getRunUrl opens): switches to that workspace when the key reaches it,
 * then opens the run in its trace (looking the trace up when the link does not name it).
 */
export function RunLink({ tenant, project, run }: { tenant: string; project: string; run: string }) {
  const session = useSession();
  const { query } = useLocation();
  const [error, setError] = useState<unknown>(null);
  const reachable = session.workspaces.some((w) => w.id === tenant);
  const traceId = query.get("trace_id");
  useEffect(() => {
    if (reachable && session.workspaceId !== tenant) {
      session.selectWorkspace(tenant);
      return;
    }
    const open = (trace: string) =>
      navigate(
        `/tracing-projects/${encodeURIComponent(project)}?trace=${encodeURIComponent(trace)}&selected_run=${encodeURIComponent(run)}`,
        { replace: true },
      );
    if (traceId) open(traceId);
    else
      session.client
        .request<{ trace_id: string | null }>("GET", `${LANGSMITH_API}/runs/${encodeURIComponent(run)}`)
        .then((r) => open(r.trace_id ?? run), setError);
  }, [reachable, session.workspaceId, tenant, project, run, traceId]);
  return error ? <ErrorBox error={error} /> : <p class="muted">Opening the run…</p>;
}
