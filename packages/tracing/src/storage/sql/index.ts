import type { SqlDialect } from "@berth-platform/server-kit";
import type { Kysely } from "kysely";
import type { TracingStorage } from "../types.js";
import { SqlDatasetVersionStore } from "./dataset-versions.js";
import { SqlDatasetStore } from "./datasets.js";
import { SqlFeedbackStore } from "./feedback.js";
import { SqlPriceStore, SqlShareStore } from "./prices-shares.js";
import { SqlProjectStore } from "./projects.js";
import type { TracingDb } from "./schema.js";
import { SqlTraceStore } from "./traces.js";

/** The tracing storage port over a migrated Kysely database of either dialect. */
export function sqlTracingStorage(db: Kysely<TracingDb>, dialect: SqlDialect): TracingStorage {
  return {
    projects: new SqlProjectStore(db, dialect),
    traces: new SqlTraceStore(db, dialect),
    feedback: new SqlFeedbackStore(db),
    datasets: new SqlDatasetStore(db, dialect),
    datasetVersions: new SqlDatasetVersionStore(db, dialect),
    prices: new SqlPriceStore(db),
    shares: new SqlShareStore(db),
  };
}
