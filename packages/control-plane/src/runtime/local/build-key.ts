import { createHash } from "node:crypto";
import type { Revision } from "../../domain/types.js";

/**
 * The identity of a build: revisions whose source and build inputs are equal share one build (a
 * secrets-only change redeploys without rebuilding). `sourceId` pins the exact source: the upload's
 * object path (uploads are single-use), the commit sha, or the template id and Berth's version.
 */
export function buildKey(revision: Revision, sourceId: string): string {
  const inputs = [
    revision.source,
    sourceId,
    revision.source_revision_config.graph_config_path ?? "",
    revision.install_command ?? "",
    revision.build_command ?? "",
  ];
  return createHash("sha256").update(JSON.stringify(inputs)).digest("hex").slice(0, 24);
}
