// The shell: sign-in, the header with the workspace switcher, and the routed page.
import { useEffect, useMemo, useState } from "preact/hooks";
import { ControlPlaneClient } from "./api/control-plane.js";
import type { Workspace } from "./api/types.js";
import { Session, type SessionContext } from "./context.js";
import { SignIn } from "./pages/sign-in.js";
import { useLocation } from "./router.js";
import { routeFor } from "./routes.js";
import { clearSession, loadSession, type StoredSession, saveSession } from "./session.js";

/** The signed-in state: the key, its workspaces and the chosen one. */
interface Signed extends StoredSession {
  workspaces: Workspace[];
}

/** Picks the stored workspace if the key still reaches it, else the first one. */
function pickWorkspace(workspaces: Workspace[], wanted: string | null): string | null {
  if (wanted && workspaces.some((w) => w.id === wanted)) return wanted;
  return workspaces[0]?.id ?? null;
}

/** The whole app. */
export function App() {
  const [signed, setSigned] = useState<Signed | null>(null);
  const [restoring, setRestoring] = useState(() => loadSession() !== null);

  const signIn = async (apiKey: string, wanted: string | null) => {
    const workspaces = await new ControlPlaneClient({ apiKey, workspaceId: null }).workspaces();
    const session = { apiKey, workspaceId: pickWorkspace(workspaces, wanted), workspaces };
    saveSession(session);
    setSigned(session);
  };

  // A reload of a signed-in tab signs in again with the stored key.
  useEffect(() => {
    const stored = loadSession();
    if (!stored) return;
    signIn(stored.apiKey, stored.workspaceId)
      .catch(() => clearSession())
      .finally(() => setRestoring(false));
  }, []);

  if (restoring) return <p class="muted center">Signing in…</p>;
  if (!signed) return <SignIn onSignIn={(key) => signIn(key, null)} />;
  return <SignedIn signed={signed} setSigned={setSigned} />;
}

function SignedIn({ signed, setSigned }: { signed: Signed; setSigned(s: Signed | null): void }) {
  const { path } = useLocation();
  const client = useMemo(
    () => new ControlPlaneClient({ apiKey: signed.apiKey, workspaceId: signed.workspaceId }),
    [signed.apiKey, signed.workspaceId],
  );
  const context: SessionContext = {
    client,
    workspaces: signed.workspaces,
    workspaceId: signed.workspaceId,
    selectWorkspace(id) {
      const next = { ...signed, workspaceId: id };
      saveSession(next);
      setSigned(next);
    },
    signOut() {
      clearSession();
      setSigned(null);
    },
  };
  const { render } = routeFor(path);
  return (
    <Session.Provider value={context}>
      <header class="top">
        <a class="brand" href="/">
          Berth
        </a>
        <nav>
          <a href="/">Deployments</a>
          <a href="/tracing-projects">Tracing</a>
          <a href="/docs" data-external>
            API docs
          </a>
        </nav>
        <span class="spacer" />
        {signed.workspaces.length > 1 ? (
          <select
            aria-label="Workspace"
            value={signed.workspaceId ?? ""}
            onChange={(e) => context.selectWorkspace((e.target as HTMLSelectElement).value)}
          >
            {signed.workspaces.map((w) => (
              <option key={w.id} value={w.id}>
                {w.display_name}
              </option>
            ))}
          </select>
        ) : (
          <span class="muted">{signed.workspaces[0]?.display_name}</span>
        )}
        <button type="button" class="small" onClick={context.signOut}>
          Sign out
        </button>
      </header>
      <main key={signed.workspaceId}>{render()}</main>
    </Session.Provider>
  );
}
