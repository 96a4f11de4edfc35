import type { IncomingHttpHeaders } from "node:http";

/** Who sends traces: a deployment (its ingest key) or a workspace's API key. */
export interface IngestSender {
  tenantId: string;
  /** The deployment whose ingest key was used, else null. */
  deploymentId: string | null;
}

/** The caller of a LangSmith route: a deployment's ingest key, or a workspace API key. */
export interface TracingCaller {
  sender: IngestSender;
  kind: "ingest" | "api";
}

/**
 * Authentication and workspace resolution, provided by the host (the control plane: its API keys,
 * its per-deployment ingest keys; standalone: one key). Throws an ApiError (401/403) for a
 * request it refuses.
 */
export interface TracingAuth {
  callerOf(headers: IncomingHttpHeaders): Promise<TracingCaller>;
}

/** The deployments an ingest key may belong to, provided by the host (standalone: none). */
export interface DeploymentDirectory {
  /** The deployment's name, or undefined when the workspace has no such deployment (any more). */
  nameOf(tenantId: string, deploymentId: string): Promise<string | undefined>;
}
