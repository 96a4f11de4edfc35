export { ClientNodeCluster, FIELD_MANAGER, type KubeAccess } from "./client-node-cluster.js";
export { ClientNodeLease } from "./client-node-lease.js";
export { type ListenerConfig, type ListenerConfigInput, parseListenerConfig } from "./config.js";
export { ControlPlaneClient } from "./control-plane-client.js";
export { type DockerfileOptions, IMAGE_PACKAGES_DIR, renderDockerfile } from "./dockerfile.js";
export {
  type ListenerInstall,
  listenerInstallYaml,
  managedNamespaceRules,
  renderListenerInstall,
  resourceOf,
} from "./install-manifests.js";
export { loadKubeConfig } from "./kube-config.js";
export {
  DEFAULT_TIMINGS,
  type ElectionTimings,
  LeaderElector,
  type LeasePort,
  type LeaseRecord,
} from "./leader-election.js";
export { type ListenerParts, type RunningListener, startListener } from "./listener.js";
export { type Component, inClusterUrl, LABELS, objectName } from "./names.js";
export { Reconciler, type ReconcilerOptions } from "./reconciler.js";
export { renderRevision, toPrune } from "./render.js";
export { judgeRollout, type RolloutVerdict } from "./rollout.js";
export {
  type ClusterPort,
  type ContainerSpec,
  type ControlPlanePort,
  DEFAULT_RENDER_OPTIONS,
  type DeployLogLine,
  type DesiredDeployment,
  type DesiredRevision,
  type DesiredRevisionState,
  type DesiredState,
  type KubeObject,
  type ListenerLogger,
  MANAGED_KINDS,
  type RenderOptions,
  type ResourceSpec,
} from "./types.js";
