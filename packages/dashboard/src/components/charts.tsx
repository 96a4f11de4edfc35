// Tiny SVG charts (no chart library: a few hundred bytes instead of tens of kilobytes).

/** "2 min 30 s", "45 s"; whole hours and days past two hours ("6 h", "7 d"). */
function span(seconds: number): string {
  if (seconds >= 2 * 86_400 && seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds >= 7200) return `${Math.round(seconds / 3600)} h`;
  const m = Math.floor(seconds / 60);
  const r = Math.round(seconds % 60);
  return m > 0 ? `${m} min${r ? ` ${r} s` : ""}` : `${r} s`;
}

/**
 * The last values as a line with its axes: 0 and the maximum on the left, the time range (one
 * sample every `everySeconds`, the newest at "now") below.
 */
export function LineChart({
  values,
  everySeconds,
  width = 260,
  height = 86,
}: {
  values: number[];
  everySeconds: number;
  width?: number;
  height?: number;
}) {
  const left = 30;
  const bottom = 16;
  const plotW = width - left - 4;
  const plotH = height - bottom - 6;
  const max = Math.max(1, ...values);
  // One value draws a flat line, not an invisible point.
  const drawn = values.length === 1 ? [values[0] as number, values[0] as number] : values;
  const step = drawn.length > 1 ? plotW / (drawn.length - 1) : plotW;
  const y = (v: number) => 6 + plotH - (v / max) * plotH;
  const points = drawn.map((v, i) => `${(left + i * step).toFixed(1)},${y(v).toFixed(1)}`);
  const range = span(Math.max(0, values.length - 1) * everySeconds);
  return (
    <svg class="chart" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img">
      <title>{`last ${range}, a sample every ${everySeconds} s, max ${max}`}</title>
      <g class="axis">
        <line x1={left} y1={6} x2={left} y2={6 + plotH} />
        <line x1={left} y1={6 + plotH} x2={left + plotW} y2={6 + plotH} />
        <text x={left - 4} y={10} text-anchor="end">
          {max}
        </text>
        <text x={left - 4} y={6 + plotH} text-anchor="end">
          0
        </text>
        <text x={left} y={height - 3}>
          {values.length > 1 ? `−${range}` : "since now"}
        </text>
        <text x={left + plotW} y={height - 3} text-anchor="end">
          now
        </text>
      </g>
      <polyline fill="none" stroke="currentColor" stroke-width="1.5" points={points.join(" ")} />
    </svg>
  );
}

/** Horizontal bars, one per label. */
export function Bars({ data }: { data: Array<{ label: string; value: number; tone?: string }> }) {
  const max = Math.max(1, ...data.map((d) => d.value));
  return (
    <div class="bars">
      {data.map((d) => (
        <div class="bar-row" key={d.label}>
          <span class="bar-label">{d.label}</span>
          <span class={`bar ${d.tone ?? ""}`} style={{ width: `${(d.value / max) * 100}%` }} />
          <span class="bar-value">{d.value}</span>
        </div>
      ))}
    </div>
  );
}
