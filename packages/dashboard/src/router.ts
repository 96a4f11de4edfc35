// A small path router: pages are matched against patterns (`/deployments/:id/:tab?`), navigation
// uses the History API, and links are plain <a> elements intercepted by one click handler.
import { useEffect, useState } from "preact/hooks";

const NAVIGATE = "berth:navigate";

/** Matches a pattern like `/deployments/:id/:tab?` against a path; the params, or null. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/").filter(Boolean);
  const have = path.split("/").filter(Boolean);
  const params: Record<string, string> = {};
  for (let i = 0; i < Math.max(want.length, have.length); i++) {
    const w = want[i];
    const h = have[i];
    if (w === undefined) return null;
    const optional = w.endsWith("?");
    if (h === undefined) {
      if (optional) continue;
      return null;
    }
    if (w.startsWith(":")) params[w.slice(1).replace(/\?$/, "")] = decodeURIComponent(h);
    else if (w !== h) return null;
  }
  return params;
}

/** Goes to an in-app URL (path and query). */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  dispatchEvent(new Event(NAVIGATE));
}

/** The current location; re-renders on navigation. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const read = () => ({ path: location.pathname, query: new URLSearchParams(location.search) });
  const [loc, setLoc] = useState(read);
  useEffect(() => {
    const update = () => setLoc(read());
    addEventListener("popstate", update);
    addEventListener(NAVIGATE, update);
    // A child's effect may have navigated before this (parent) effect subscribed.
    update();
    return () => {
      removeEventListener("popstate", update);
      removeEventListener(NAVIGATE, update);
    };
  }, []);
  return loc;
}

/** Sets one query parameter of the current URL (replacing history, for filters and tabs). */
export function setQuery(name: string, value: string | null): void {
  const q = new URLSearchParams(location.search);
  if (value === null || value === "") q.delete(name);
  else q.set(name, value);
  const search = q.toString();
  navigate(`${location.pathname}${search ? `?${search}` : ""}`, { replace: true });
}

/** Routes clicks on same-origin <a href> through navigate() (modifier keys keep the browser's way). */
export function interceptLinks(root: HTMLElement): void {
  root.addEventListener("click", (event) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const a = (event.target as Element).closest("a");
    if (!a || a.target || a.hasAttribute("download") || a.dataset.external !== undefined) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || url.pathname.startsWith("/docs")) return;
    event.preventDefault();
    navigate(`${url.pathname}${url.search}`);
  });
}
