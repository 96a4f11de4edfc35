// A project's traces over a chosen range: latency (p50 and p99 of finished traces) and model tokens
// per bucket, from the server's series (the metrics page's axis charts, one sample per bucket).
import { useState } from "preact/hooks";
import { LineChart } from "../components/charts.js";
import { ErrorBox } from "../components/ui.js";
import { useSession } from "../context.js";
import { duration } from "../format.js";
import { useInterval, useLoad } from "../hooks.js";

const HOUR = 3_600_000;
/** The ranges offered, each split into 24 buckets. */
const RANGES: Record<string, number> = {
  "1 h": HOUR,
  "6 h": 6 * HOUR,
  "24 h": 24 * HOUR,
  "7 d": 7 * 24 * HOUR,
};
const BUCKETS = 24;

/** Charts of the project's traces over the chosen range, ending now. */
export function TraceCharts({ projectId }: { projectId: string }) {
  const { client } = useSession();
  const [range, setRange] = useState("24 h");
  const span = RANGES[range] ?? 24 * HOUR;
  const series = useLoad(() => {
    const end = Date.now();
    return client.traceSeries(projectId, { startMs: end - span, endMs: end, buckets: BUCKETS });
  }, [client, projectId, span]);
  useInterval(series.reload, 15_000, series.data !== undefined);
  const points = series.data?.points ?? [];
  const every = series.data?.bucket_seconds ?? span / BUCKETS / 1000;
  const p50 = points.map((p) => p.latency_p50_ms ?? 0);
  const p99 = points.map((p) => p.latency_p99_ms ?? 0);
  const tokens = points.map((p) => p.total_tokens);
  const traces = points.reduce((a, p) => a + p.traces, 0);
  const errors = points.reduce((a, p) => a + p.errors, 0);
  const worst = Math.max(0, ...p99);
  return (
    <section class="card trace-charts" id="trace-charts" data-range={range}>
      <div class="title-row">
        <h3>Over the last</h3>
        <fieldset class="range-picker" aria-label="Time range">
          {Object.keys(RANGES).map((r) => (
            <button
              key={r}
              type="button"
              class={`small${r === range ? " active" : ""}`}
              aria-pressed={r === range}
              onClick={() => setRange(r)}
            >
              {r}
            </button>
          ))}
        </fieldset>
        <span class="muted" id="series-totals">
          {traces} trace{traces === 1 ? "" : "s"} · {errors} failed
        </span>
      </div>
      <ErrorBox error={series.error} />
      <div class="grid">
        <div>
          <h4>Latency p50 (ms)</h4>
          <LineChart values={p50} everySeconds={every} />
        </div>
        <div>
          <h4>Latency p99{worst ? ` (max ${duration(worst)})` : ""}</h4>
          <LineChart values={p99} everySeconds={every} />
        </div>
        <div>
          <h4>Model tokens</h4>
          <LineChart values={tokens} everySeconds={every} />
        </div>
      </div>
    </section>
  );
}
