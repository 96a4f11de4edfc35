export { type DockerfileOptions, renderDockerfile } from "./dockerfile.js";
export { inClusterUrl, LABELS, objectName, renderRevision, toPrune } from "./render.js";
export type { ContainerSpec, DesiredRevision, KubeObject, ResourceSpec } from "./types.js";
