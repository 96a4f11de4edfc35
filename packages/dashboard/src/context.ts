import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { ControlPlaneClient } from "./api/control-plane.js";
import type { Workspace } from "./api/types.js";

/** What every page of a signed-in session reaches: the API client and the workspace choice. */
export interface SessionContext {
  client: ControlPlaneClient;
  workspaces: Workspace[];
  workspaceId: string | null;
  selectWorkspace(id: string): void;
  signOut(): void;
}

export const Session = createContext<SessionContext | null>(null);

/** The signed-in session (pages are only rendered inside one). */
export function useSession(): SessionContext {
  const session = useContext(Session);
  if (!session) throw new Error("useSession outside a signed-in session");
  return session;
}
