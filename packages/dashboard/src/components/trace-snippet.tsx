// "Send traces here": what the official langsmith SDK (and LangChain, LangGraph) needs to trace to
// this control plane. The key stays a placeholder: the page never prints the session's key.
import { LANGSMITH_API } from "../api/control-plane.js";
import { CopyButton } from "./ui.js";

/** The environment a program sets to trace to `project` on this control plane. */
export function traceEnv(origin: string, project: string): string {
  return [
    "LANGSMITH_TRACING=true",
    `LANGSMITH_ENDPOINT=${origin}`,
    "LANGSMITH_API_KEY=$BERTH_API_KEY",
    `LANGSMITH_PROJECT=${project}`,
  ].join("\n");
}

/** The snippet with a copy button; `project` defaults to LangSmith's default project name. */
export function SendTracesHere({ project = "default", open = false }: { project?: string; open?: boolean }) {
  const origin = location.origin;
  const env = traceEnv(origin, project);
  return (
    <details class="card send-traces" id="send-traces" open={open}>
      <summary>
        Send traces here: <code>{origin}</code> · project <b>{project}</b>
      </summary>
      <p class="muted">
        Point the <code>langsmith</code> SDK (or LangChain / LangGraph tracing) at this control plane with a
        Berth API key; runs land in project <b>{project}</b>, created on first use.
      </p>
      <div class="url-row">
        <code id="trace-endpoint">{origin}</code>
        <CopyButton text={origin} label="Copy endpoint" />
      </div>
      <pre class="snippet" id="trace-env">
        {env}
      </pre>
      <CopyButton text={env} label="Copy" />
      <p class="muted">
        <code>{`${origin}${LANGSMITH_API}`}</code> answers the same API (agents deployed by Berth use it).
      </p>
    </details>
  );
}
