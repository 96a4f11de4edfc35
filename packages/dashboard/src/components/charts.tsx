// Tiny SVG charts (no chart library: a few hundred bytes instead of tens of kilobytes).

/** A line of the last values, scaled to its own maximum. */
export function Sparkline({
  values,
  width = 220,
  height = 48,
}: {
  values: number[];
  width?: number;
  height?: number;
}) {
  const max = Math.max(1, ...values);
  // One value draws a flat line, not an invisible point.
  if (values.length === 1) values = [values[0] as number, values[0] as number];
  const step = values.length > 1 ? width / (values.length - 1) : width;
  const points = values.map(
    (v, i) => `${(i * step).toFixed(1)},${(height - (v / max) * (height - 4) - 2).toFixed(1)}`,
  );
  return (
    <svg class="spark" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img">
      <title>{`last ${values.length} values, max ${max}`}</title>
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
