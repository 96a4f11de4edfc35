/** Deployment statuses, as the real service names them. */
export const DEPLOYMENT_STATUSES = [
  "AWAITING_DATABASE",
  "READY",
  "UNUSED",
  "AWAITING_DELETE",
  "AWAITING_FINAL_DELETE",
  "UNKNOWN",
] as const;
/** A deployment's status. */
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

const NEXT: Readonly<Record<DeploymentStatus, readonly DeploymentStatus[]>> = {
  // The database (for the embedded default: the deployment's data directory) now exists.
  AWAITING_DATABASE: ["READY", "AWAITING_DELETE"],
  READY: ["UNUSED", "AWAITING_DELETE"],
  UNUSED: ["READY", "AWAITING_DELETE"],
  AWAITING_DELETE: ["AWAITING_FINAL_DELETE"],
  AWAITING_FINAL_DELETE: [],
  UNKNOWN: ["AWAITING_DELETE"],
};

/** Whether a deployment may move from one status to another. */
export function canDeploymentTransition(from: DeploymentStatus, to: DeploymentStatus): boolean {
  return NEXT[from].includes(to);
}

/** Whether the deployment is being torn down (no more changes are accepted). */
export function isDeleting(status: DeploymentStatus): boolean {
  return status === "AWAITING_DELETE" || status === "AWAITING_FINAL_DELETE";
}

/** Whether a string names a deployment status. */
export function isDeploymentStatus(value: string): value is DeploymentStatus {
  return (DEPLOYMENT_STATUSES as readonly string[]).includes(value);
}
