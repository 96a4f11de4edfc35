// The tracing service as a package: the host (the control plane, or standalone.ts) builds the
// storage, the ingest queue and the service, provides the auth and deployment ports, and mounts
// the LangSmith-compatible routes.
export { parseRunFilter, type RunFilter, RunFilterError } from "./domain/run-filter.js";
export { type RunStatus, type RunWrite, runWriteOf, statusOf, type TraceRun } from "./domain/tracing.js";
export type { TracingProject } from "./domain/types.js";
export * from "./errors.js";
export { LANGSMITH_PREFIX, type LangSmithDeps, type LangSmithMount, langsmithRoutes } from "./http/plugin.js";
export { LANGSMITH_API_VERSION } from "./http/routes/info.js";
export { traceSummaryToWire, traceToWire } from "./http/trace-wire.js";
export type { DeploymentDirectory, IngestSender, TracingAuth, TracingCaller } from "./ports.js";
export {
  TraceIngestQueue,
  type TraceQueueLimits,
  type TraceQueueMetrics,
} from "./services/trace-ingest.js";
export { type TraceRetention, TracingService } from "./services/tracing.js";
export {
  type StandaloneTracing,
  type StandaloneTracingOptions,
  startStandaloneTracing,
} from "./standalone.js";
export { sqlTracingStorage } from "./storage/sql/index.js";
export { standaloneMigrations, tracingMigrations } from "./storage/sql/migrations.js";
export type { TracingDb } from "./storage/sql/schema.js";
export type * from "./storage/types.js";
