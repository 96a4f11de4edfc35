import { BadRequestError } from "../errors.js";
import type { Source } from "./types.js";

/** The 13 revision statuses of the real service. */
export const REVISION_STATUSES = [
  "CREATING",
  "QUEUED",
  "AWAITING_BUILD",
  "BUILDING",
  "AWAITING_DEPLOY",
  "DEPLOYING",
  "CREATE_FAILED",
  "BUILD_FAILED",
  "DEPLOY_FAILED",
  "DEPLOYED",
  "SKIPPED",
  "INTERRUPTED",
  "UNKNOWN",
] as const;
/** A revision's status. */
export type RevisionStatus = (typeof REVISION_STATUSES)[number];

const TERMINAL: ReadonlySet<RevisionStatus> = new Set([
  "CREATE_FAILED",
  "BUILD_FAILED",
  "DEPLOY_FAILED",
  "DEPLOYED",
  "SKIPPED",
  "INTERRUPTED",
]);

/** The state machine: which status may follow which (reference §5.2). */
const NEXT: Readonly<Record<RevisionStatus, readonly RevisionStatus[]>> = {
  CREATING: ["QUEUED", "AWAITING_BUILD", "AWAITING_DEPLOY", "CREATE_FAILED", "SKIPPED", "INTERRUPTED"],
  QUEUED: ["AWAITING_BUILD", "AWAITING_DEPLOY", "CREATE_FAILED", "SKIPPED", "INTERRUPTED"],
  AWAITING_BUILD: ["BUILDING", "SKIPPED", "INTERRUPTED"],
  BUILDING: ["AWAITING_DEPLOY", "BUILD_FAILED", "INTERRUPTED"],
  AWAITING_DEPLOY: ["DEPLOYING", "SKIPPED", "INTERRUPTED"],
  DEPLOYING: ["DEPLOYED", "DEPLOY_FAILED", "INTERRUPTED"],
  UNKNOWN: ["SKIPPED", "INTERRUPTED"],
  CREATE_FAILED: [],
  BUILD_FAILED: [],
  DEPLOY_FAILED: [],
  DEPLOYED: [],
  SKIPPED: [],
  INTERRUPTED: [],
};

/** Whether a string names a revision status. */
export function isRevisionStatus(value: string): value is RevisionStatus {
  return (REVISION_STATUSES as readonly string[]).includes(value);
}

/** Whether a revision has finished (successfully or not) and will not move again. */
export function isTerminal(status: RevisionStatus): boolean {
  return TERMINAL.has(status);
}

/** Whether a status read off the wire is one a revision stays in (clients polling until it settles). */
export function isSettledStatus(status: string): boolean {
  return TERMINAL.has(status as RevisionStatus);
}

/** Whether the state machine allows `from` → `to`. */
export function canTransition(from: RevisionStatus, to: RevisionStatus): boolean {
  return NEXT[from].includes(to);
}

/**
 * Statuses a newer revision supersedes (→ SKIPPED): the revision is only waiting, no build or
 * rollout of it is under way, so only the newest one is worth doing.
 */
export function isSupersedable(status: RevisionStatus): boolean {
  return (
    status === "CREATING" ||
    status === "QUEUED" ||
    status === "AWAITING_BUILD" ||
    status === "AWAITING_DEPLOY" ||
    status === "UNKNOWN"
  );
}

/** Statuses with work under way: a newer revision queues behind them. */
export function isInProgress(status: RevisionStatus): boolean {
  return status === "BUILDING" || status === "DEPLOYING";
}

/** Sources whose revisions are built into an image before they are deployed. */
export function isBuildable(source: Source): boolean {
  return source === "repo_host" || source === "internal_source" || source === "internal_template";
}

/** Facts the planner needs about a revision waiting in CREATING or QUEUED. */
export interface AdvanceContext {
  status: RevisionStatus;
  source: Source;
  /** The revision names what to build or deploy (image, tarball, repository…). */
  hasArtifact: boolean;
  /** The deployment's database exists (deployment READY). */
  databaseReady: boolean;
  /** Another revision of the same deployment is building or deploying. */
  blocked: boolean;
}

/**
 * The next status the control plane itself can move a waiting revision to, or null when the
 * revision must wait (for the database, for its source artifact, or — past AWAITING_* — for a
 * builder or runtime to do real work).
 */
export function planAdvance(ctx: AdvanceContext): RevisionStatus | null {
  if (ctx.status !== "CREATING" && ctx.status !== "QUEUED") return null;
  if (!ctx.databaseReady || !ctx.hasArtifact) return null;
  if (ctx.blocked) return ctx.status === "CREATING" ? "QUEUED" : null;
  return isBuildable(ctx.source) ? "AWAITING_BUILD" : "AWAITING_DEPLOY";
}

/** The status an interrupt leads to; interrupting a finished revision is a 400. */
export function interruptStatus(status: RevisionStatus): RevisionStatus {
  if (isTerminal(status)) {
    throw new BadRequestError(`Revision is ${status} and cannot be interrupted.`);
  }
  return "INTERRUPTED";
}
