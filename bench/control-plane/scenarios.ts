import autocannon from "autocannon";

/** One measured load phase. */
export interface PhaseResult {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

/** Runs autocannon against one request shape and summarises it. */
export async function loadPhase(
  name: string,
  options: {
    url: string;
    method?: "GET" | "POST";
    headers: Record<string, string>;
    connections: number;
    seconds: number;
    /** Builds a fresh body per request (creates need unique names). */
    body?: () => string;
  },
): Promise<PhaseResult> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? "GET",
    headers: options.headers,
    connections: options.connections,
    duration: options.seconds,
    ...(options.body
      ? {
          requests: [
            {
              setupRequest: (request: autocannon.Request) => ({ ...request, body: options.body?.() ?? "" }),
            },
          ],
        }
      : {}),
  });
  return {
    name,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** A valid create body with a unique name (external_container needs no build). */
export function createBody(counter: { n: number }): string {
  counter.n += 1;
  return JSON.stringify({
    name: `bench-${process.pid}-${counter.n}`,
    source: "external_container",
    source_config: {},
    source_revision_config: { image_uri: "docker.io/library/nginx:1.27" },
    secrets: [{ name: "BENCH_SECRET", value: "not-a-real-secret" }],
  });
}
