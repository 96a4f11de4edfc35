import { useEffect, useState } from "preact/hooks";
import { agentText } from "../api/agent.js";
import { parsePrometheus, type Sample, sum } from "../api/prometheus.js";
import { Bars, LineChart } from "../components/charts.js";
import { ErrorBox } from "../components/ui.js";
import { useSession } from "../context.js";
import { statusTone } from "../format.js";
import { useInterval } from "../hooks.js";
import type { DeploymentView } from "./deployment.js";

const KEEP = 60;
const EVERY_MS = 3000;

interface Point {
  pending: number;
  running: number;
  finished: number;
}

/** Small charts from the agent server's /metrics (Prometheus text, through the proxy). */
export function AgentMetrics({ deployment }: DeploymentView) {
  const { client } = useSession();
  const [samples, setSamples] = useState<Sample[] | null>(null);
  const [history, setHistory] = useState<Point[]>([]);
  const [error, setError] = useState<unknown>(null);
  const scrape = async () => {
    try {
      const s = parsePrometheus(await agentText(client, deployment.id, "/metrics"));
      setSamples(s);
      setError(null);
      const point = {
        pending: sum(s, "lg_api_num_pending_runs"),
        running: sum(s, "lg_api_num_running_runs"),
        finished: sum(s, "lg_api_runs_finished_total"),
      };
      setHistory((h) => [...h, point].slice(-KEEP));
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    setHistory([]);
    void scrape();
  }, [deployment.id]);
  useInterval(scrape, EVERY_MS, deployment.active_revision_id !== null);

  if (!deployment.active_revision_id) return <p class="muted">No revision is serving yet.</p>;
  const statuses = [
    ...new Set(
      (samples ?? [])
        .filter((s) => s.name === "lg_api_runs_finished_total")
        .map((s) => s.labels.status ?? ""),
    ),
  ];
  const finishedDeltas = history.map((p, i) =>
    i === 0 ? 0 : p.finished - (history[i - 1]?.finished ?? p.finished),
  );
  return (
    <div class="metrics" id="metrics">
      <ErrorBox error={error} />
      <div class="grid">
        <section class="card">
          <h3>Queue depth</h3>
          <p class="big">{history.at(-1)?.pending ?? "–"}</p>
          <LineChart values={history.map((p) => p.pending)} everySeconds={EVERY_MS / 1000} />
        </section>
        <section class="card">
          <h3>Running runs</h3>
          <p class="big">
            {history.at(-1)?.running ?? "–"}
            <small class="muted"> / {samples ? sum(samples, "lg_api_workers_max") : "–"} workers</small>
          </p>
          <LineChart values={history.map((p) => p.running)} everySeconds={EVERY_MS / 1000} />
        </section>
        <section class="card">
          <h3>Runs finished per {EVERY_MS / 1000} s</h3>
          <p class="big">{samples ? sum(samples, "lg_api_runs_finished_total") : "–"} total</p>
          <LineChart values={finishedDeltas} everySeconds={EVERY_MS / 1000} />
        </section>
      </div>
      <section class="card">
        <h3>Runs by status</h3>
        <Bars
          data={statuses.map((status) => ({
            label: status,
            value: sum(samples ?? [], "lg_api_runs_finished_total", { status }),
            tone: statusTone(status),
          }))}
        />
        <h3>Mean duration by status</h3>
        <Bars
          data={statuses.map((status) => {
            const count = sum(samples ?? [], "lg_api_run_duration_seconds_count", { status });
            const total = sum(samples ?? [], "lg_api_run_duration_seconds_sum", { status });
            return { label: `${status} (s)`, value: count ? Math.round((total / count) * 1000) / 1000 : 0 };
          })}
        />
        {statuses.length === 0 && <p class="muted">No run has finished since this agent server started.</p>}
      </section>
    </div>
  );
}
