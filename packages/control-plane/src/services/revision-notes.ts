// Lines the control plane itself writes into a revision's build log, so that no revision ends in
// a status its log does not explain (a SKIPPED revision used to have an empty log).
import { hasArtifact } from "../domain/deployment.js";
import type { Deployment, Revision } from "../domain/types.js";
import type { ControlPlaneStorage } from "../storage/types.js";

/** Appends one INFO line to the build log of each revision (of one deployment) named. */
export async function noteRevisions(
  storage: ControlPlaneStorage,
  deployment: Pick<Deployment, "id" | "tenant_id">,
  revisionIds: readonly string[],
  message: string,
): Promise<void> {
  if (revisionIds.length === 0) return;
  await storage.logs.append(
    revisionIds.map((revision_id) => ({
      tenant_id: deployment.tenant_id,
      deployment_id: deployment.id,
      revision_id,
      type: "build" as const,
      timestamp: Date.now(),
      level: "INFO",
      message,
    })),
  );
}

/** Why the revisions `skipped` ended SKIPPED: `newer` was made while they were still waiting. */
export function supersededNote(newer: Revision): string {
  return `SKIPPED: revision ${newer.id} was made before this one was built or deployed; only the newest waiting revision of a deployment is built.`;
}

/**
 * What a revision that names nothing to build waits for, or null when it names something: an
 * internal_source deployment created without an archive (as `berth deploy` and the official
 * `langgraph deploy` create it, before they upload one and PATCH it in as a new revision).
 */
export function waitingForSourceNote(deployment: Deployment, revision: Revision): string | null {
  if (hasArtifact(revision.source, revision.source_revision_config, deployment.source_config)) return null;
  if (revision.source !== "internal_source") return null;
  return "Waiting for the source archive: this revision names no source_revision_config.source_tarball_path. An upload (POST /v2/deployments/{id}/upload-url, then PATCH with the object_path) makes a new revision, and this one ends SKIPPED.";
}
