import { randomUUID } from "node:crypto";
import type { RuleContext, Stamp } from "../domain/deployment.js";

/** A fresh id generator and timestamp for one operation. */
export function stampNow(): Stamp {
  return { now: new Date().toISOString(), newId: randomUUID };
}

/**
 * The facts the rules ask about. No listeners and no upload URLs exist yet (later issues), so
 * any listener id or tarball path is unknown and refused with a 400.
 */
export const NOTHING_REGISTERED: RuleContext = {
  listenerExists: () => false,
  isUploadPath: () => false,
};
