/**
 * Self-hosted LangSmith serves the control plane under `/api-host` on its own host, and the
 * official clients (langgraph-cli, `langgraphjs deploy`, the Terraform provider) derive that URL
 * from `LANGSMITH_ENDPOINT`. Berth answers there too.
 */
export const API_HOST_PREFIX = "/api-host";

/**
 * Only the versioned API moves: `/api-host/v1/…` and `/api-host/v2/…` are routed as `/v1/…` and
 * `/v2/…` (same routes, hooks and auth), while the dashboard, /docs and the `/agents/<id>` proxy
 * stay where they are. A rewrite rather than a second registration keeps one route table, one
 * OpenAPI document and one metrics label per route.
 */
const MOUNTED = /^\/api-host(?=\/v[12](?:[/?#]|$))/;

/** The URL a request is routed by: `/api-host` dropped from a versioned API path. */
export function apiHostRewrite(url: string): string {
  return url.replace(MOUNTED, "");
}
