import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { LangSmithDeps } from "../plugin.js";

/**
 * The version /info claims: self-hosted LangSmith 0.16 is where the SDK's generated client
 * (`client.runs.query`, `client.runs.retrieve`, `client.datasets` …) starts; below it the SDK
 * warns on every such call. Not 0.16.14 or 0.18: annotation-queue items and `sessions.resolve`
 * (what those add) are not served.
 */
export const LANGSMITH_API_VERSION = "0.16.0";

/** `GET /info`: public, what the SDK reads before sending (batching, compression, features). */
export function infoRoutes(deps: LangSmithDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get("/info", { schema: { hide: true }, config: { public: true } }, async () => ({
      // The LangSmith API version whose endpoints the SDK uses that Berth serves (see
      // docs/decisions.md); the SDK warns below 0.16.0 on its generated client's calls.
      version: LANGSMITH_API_VERSION,
      berth_version: deps.version,
      license_expiration_time: null,
      batch_ingest_config: {
        use_multipart_endpoint: true,
        scale_up_qsize_trigger: 1000,
        scale_up_nthreads_limit: 16,
        scale_down_nempty_trigger: 4,
        size_limit: 100,
        // Half the limit: a batch of this size always fits, whatever the SDK adds around it.
        size_limit_bytes: Math.floor(deps.ingestLimitBytes / 2),
      },
      instance_flags: {
        // Agents send over loopback: compressing would only spend their CPU (the bench measured
        // it). gzip bodies are still accepted from clients that compress anyway.
        gzip_body_enabled: false,
        zstd_compression_enabled: false,
        // The SDK creates examples only through the multipart upload.
        dataset_examples_multipart_enabled: true,
        examples_multipart_enabled: true,
        // Both run query APIs are served: /runs/query (v1) and /api/v2/runs/query.
        ch_query_enabled: true,
        sdb_query_enabled: true,
      },
      tenant_handle: null,
    }));
  };
}
