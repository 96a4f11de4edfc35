import { randomUUID } from "node:crypto";
import type { RuleContext, Stamp } from "../domain/deployment.js";
import type { ControlPlaneStorage } from "../storage/types.js";

/** Which repositories deployments may clone (the configured git hosts and integrations). */
export interface RepoPolicy {
  repoUrlProblem(url: string, integrationId: string | null): string | null;
}

/** A fresh id generator and timestamp for one operation. */
export function stampNow(): Stamp {
  return { now: new Date().toISOString(), newId: randomUUID };
}

/** The rule context of a tenant (and of an existing deployment: its completed upload paths). */
export async function contextOf(
  storage: ControlPlaneStorage,
  tenantId: string,
  deploymentId: string | null,
  repos: RepoPolicy,
): Promise<RuleContext> {
  const uploads = new Set(deploymentId ? await storage.uploads.completedPaths(tenantId, deploymentId) : []);
  // A workspace has few listeners; all of them are read (up to 1,000).
  const listeners = new Map(
    (await storage.listeners.list(tenantId, { limit: 1000, offset: 0 })).map((l) => [l.id, l]),
  );
  return {
    listenerExists: (id) => listeners.has(id),
    listenerIds: () => [...listeners.keys()],
    listenerNamespaces: (id) => listeners.get(id)?.compute_config.cluster_namespaces ?? null,
    isUploadPath: (path) => uploads.has(path),
    repoUrlProblem: (url, integrationId) => repos.repoUrlProblem(url, integrationId),
  };
}
