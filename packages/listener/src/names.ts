import { createHash } from "node:crypto";
import type { DesiredRevision } from "./types.js";

/** Label keys every rendered object carries; the listener prunes, deletes and guards by them. */
export const LABELS = {
  deployment: "berth.dev/deployment-id",
  revision: "berth.dev/revision-id",
  component: "berth.dev/component",
  managedBy: "app.kubernetes.io/managed-by",
  /** Added by the listener that applies the object: it prunes and deletes only its own. */
  listener: "berth.dev/listener-id",
} as const;

/** The objects of one deployment, by component. */
export type Component = "secrets" | "postgres" | "redis" | "api" | "queue";

/** Characters of the deployment name kept in object names (for people reading `kubectl get`). */
const SLUG_MAX = 30;
/** Hex characters of the deployment id's hash: 40 bits, so two deployments never share names. */
const HASH_LENGTH = 10;

/**
 * The name of one of a deployment's objects: `<name slug>-<id hash>-<component>`. The hash of the
 * deployment id makes names unique per deployment (two deployments with one name, in two
 * workspaces, get different objects); the slug keeps them readable. At most 30 + 1 + 10 + 1 + 8 =
 * 50 characters: a StatefulSet stays within 52 so its pods' `controller-revision-hash` label
 * (`<name>-<10-char hash>`) fits in 63, and every name is a DNS-1035 label (Service names must
 * start with a letter).
 */
export function objectName(
  rev: Pick<DesiredRevision, "deployment_id" | "name">,
  component: Component,
): string {
  let slug = rev.name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^[^a-z]+/, "")
    .slice(0, SLUG_MAX)
    .replace(/-+$/, "");
  if (slug === "") slug = "deployment";
  const hash = createHash("sha256").update(rev.deployment_id).digest("hex").slice(0, HASH_LENGTH);
  return `${slug}-${hash}-${component}`;
}

/** The in-cluster URL of a deployment's API Service (reported when the user set no custom_url). */
export function inClusterUrl(rev: Pick<DesiredRevision, "deployment_id" | "name" | "namespace">): string {
  return `http://${objectName(rev, "api")}.${rev.namespace}.svc.cluster.local:8000`;
}
