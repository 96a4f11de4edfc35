import { useEffect } from "preact/hooks";
import { useSession } from "../context.js";
import { navigate } from "../router.js";

/**
 * `/o/<tenant>/host/deployments/<id>`, the link the official CLI prints: switches to that
 * workspace when the key reaches it, then opens the deployment page.
 */
export function StatusLink({ tenant, id }: { tenant: string; id: string }) {
  const session = useSession();
  const reachable = session.workspaces.some((w) => w.id === tenant);
  useEffect(() => {
    if (reachable && session.workspaceId !== tenant) session.selectWorkspace(tenant);
    else navigate(`/deployments/${encodeURIComponent(id)}`, { replace: true });
  }, [reachable, session.workspaceId, tenant, id]);
  return <p class="muted">Opening the deployment…</p>;
}
