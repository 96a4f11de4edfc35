import { randomUUID } from "node:crypto";
import type { RuleContext, Stamp } from "../domain/deployment.js";
import type { ControlPlaneStorage } from "../storage/types.js";

/** A fresh id generator and timestamp for one operation. */
export function stampNow(): Stamp {
  return { now: new Date().toISOString(), newId: randomUUID };
}

/**
 * The facts the rules ask about. No listeners exist yet (a later issue), so any listener id is
 * unknown and refused with a 400; a new deployment has no uploads yet.
 */
export const NOTHING_REGISTERED: RuleContext = {
  listenerExists: () => false,
  isUploadPath: () => false,
};

/** The rule context of an existing deployment: its completed upload paths are known. */
export async function contextOf(
  storage: ControlPlaneStorage,
  tenantId: string,
  deploymentId: string,
): Promise<RuleContext> {
  const uploads = new Set(await storage.uploads.completedPaths(tenantId, deploymentId));
  return { listenerExists: () => false, isUploadPath: (path) => uploads.has(path) };
}
