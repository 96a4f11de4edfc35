import { KubeConfig } from "@kubernetes/client-node";
import type { KubeAccess } from "./client-node-cluster.js";

/** Loads the credentials `access` names (in-cluster service account, a file, or the default). */
export function loadKubeConfig(access: KubeAccess): KubeConfig {
  const kc = new KubeConfig();
  if (access.kind === "in-cluster") kc.loadFromCluster();
  else if (access.kind === "file") kc.loadFromFile(access.path);
  else kc.loadFromDefault();
  return kc;
}
