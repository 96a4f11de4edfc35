// The browser session: the API key and the chosen workspace live in sessionStorage only (gone when
// the tab closes; never a cookie, never localStorage).

const KEY = "berth.apiKey";
const WORKSPACE = "berth.workspace";

/** What a signed-in tab remembers. */
export interface StoredSession {
  apiKey: string;
  workspaceId: string | null;
}

/** The stored session, if the tab signed in. */
export function loadSession(): StoredSession | null {
  const apiKey = sessionStorage.getItem(KEY);
  return apiKey ? { apiKey, workspaceId: sessionStorage.getItem(WORKSPACE) } : null;
}

/** Remembers the session for this tab. */
export function saveSession(session: StoredSession): void {
  sessionStorage.setItem(KEY, session.apiKey);
  if (session.workspaceId) sessionStorage.setItem(WORKSPACE, session.workspaceId);
  else sessionStorage.removeItem(WORKSPACE);
}

/** Forgets the key and workspace. */
export function clearSession(): void {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(WORKSPACE);
}
