// Formatting shared by the pages.

const SETTLED = new Set([
  "DEPLOYED",
  "BUILD_FAILED",
  "DEPLOY_FAILED",
  "CREATE_FAILED",
  "INTERRUPTED",
  "SKIPPED",
]);

/** Whether a revision status is final. */
export function isSettled(status: string): boolean {
  return SETTLED.has(status);
}

/** The colour class of a status: ok, fail, busy or idle. */
export function statusTone(status: string | undefined): "ok" | "fail" | "busy" | "idle" {
  if (!status) return "idle";
  if (status === "DEPLOYED" || status === "success" || status === "READY" || status === "idle") return "ok";
  if (/FAILED|error|timeout/i.test(status)) return "fail";
  if (SETTLED.has(status) || status === "UNUSED" || status === "interrupted") return "idle";
  return "busy";
}

/** "3 min ago" style relative time. */
export function ago(iso: string | number, now = Date.now()): string {
  const t = typeof iso === "number" ? iso : Date.parse(iso);
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return new Date(t).toLocaleDateString();
}

/** A duration in ms as "1.2 s" / "3 min 4 s". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** Local date and time of an ISO string or epoch ms. */
export function when(value: string | number): string {
  return new Date(value).toLocaleString();
}

/** A short form of an id: its end (uuid7 ids share their time-ordered start). */
export function shortId(id: string): string {
  return id.length > 12 ? `…${id.slice(-8)}` : id;
}

/** A cost in USD as the API gives it (a number, or LangSmith's decimal text); "" when absent. */
export function cost(value: number | string | null | undefined): string {
  if (value === null || value === undefined || value === "") return "";
  const n = Number(value);
  if (!Number.isFinite(n)) return "";
  return `$${n < 0.01 && n > 0 ? n.toPrecision(2) : n.toFixed(n < 1 ? 4 : 2)}`;
}
