import { useEffect, useRef, useState } from "preact/hooks";
import type { LogEntry } from "../api/types.js";
import { ErrorBox, StatusBadge } from "../components/ui.js";
import { useSession } from "../context.js";
import { isSettled, shortId } from "../format.js";
import { setQuery, useLocation } from "../router.js";
import type { DeploymentView } from "./deployment.js";

const LEVELS = ["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"];
const FOLLOW_MS = 1000;

/** Build and deploy logs of a revision: follow mode (polls for new lines) and a minimum level. */
export function DeploymentLogs({ deployment, revisions }: DeploymentView) {
  const { client } = useSession();
  const { query } = useLocation();
  const revisionId = query.get("revision") ?? revisions[0]?.id ?? "";
  const type = query.get("type") === "deploy" ? "deploy" : "build";
  const minLevel = query.get("level") ?? "DEBUG";
  const revision = revisions.find((r) => r.id === revisionId);
  const [follow, setFollow] = useState(true);
  const [lines, setLines] = useState<LogEntry[]>([]);
  const [error, setError] = useState<unknown>(null);
  const box = useRef<HTMLPreElement>(null);
  const settled = revision ? isSettled(revision.status) : true;

  useEffect(() => {
    if (!revisionId) return;
    let stopped = false;
    let cursor: string | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    setLines([]);
    const pull = async () => {
      try {
        // Drain every page available now, then wait (follow) for more.
        for (;;) {
          const page = await client.logs(deployment.id, revisionId, { type, offset: cursor, limit: 500 });
          if (stopped) return;
          if (page.logs.length > 0) setLines((l) => [...l, ...page.logs]);
          cursor = page.next_offset;
          if (page.logs.length < 500) break;
        }
        setError(null);
      } catch (e) {
        if (!stopped) setError(e);
      }
      if (!stopped && follow) timer = setTimeout(pull, FOLLOW_MS);
    };
    void pull();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [client, deployment.id, revisionId, type, follow]);

  const shown = lines.filter((l) => LEVELS.indexOf(l.level) >= LEVELS.indexOf(minLevel));
  useEffect(() => {
    if (follow && box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [shown.length, follow]);

  return (
    <div class="logs">
      <div class="filters">
        <select
          name="revision"
          aria-label="Revision"
          value={revisionId}
          onChange={(e) => setQuery("revision", (e.target as HTMLSelectElement).value)}
        >
          {revisions.map((r) => (
            <option key={r.id} value={r.id}>
              {shortId(r.id)} · {r.status}
            </option>
          ))}
        </select>
        <span class="segmented">
          {(["build", "deploy"] as const).map((t) => (
            <button
              key={t}
              type="button"
              class={`small${t === type ? " active" : ""}`}
              onClick={() => setQuery("type", t)}
            >
              {t === "build" ? "Build log" : "Deploy log"}
            </button>
          ))}
        </span>
        <select
          name="level"
          aria-label="Minimum level"
          value={minLevel}
          onChange={(e) => setQuery("level", (e.target as HTMLSelectElement).value)}
        >
          {LEVELS.map((l) => (
            <option key={l} value={l}>
              {l === "DEBUG" ? "All levels" : `${l} and above`}
            </option>
          ))}
        </select>
        <label class="check">
          <input
            type="checkbox"
            name="follow"
            checked={follow}
            onChange={(e) => setFollow((e.target as HTMLInputElement).checked)}
          />
          Follow
        </label>
        {revision && <StatusBadge status={revision.status} />}
        {follow && !settled && <span class="muted live">live</span>}
      </div>
      <ErrorBox error={error} />
      <pre class="log" id="log" ref={box} data-type={type}>
        {shown.map((l) => (
          <div key={l.id} class={`line ${l.level.toLowerCase()}`}>
            <span class="ts">{new Date(l.timestamp).toLocaleTimeString()}</span>
            <span class="lvl">{l.level}</span>
            {l.message}
          </div>
        ))}
        {shown.length === 0 && (
          <span class="muted">{lines.length === 0 ? "No log lines yet." : "No lines at this level."}</span>
        )}
      </pre>
    </div>
  );
}
