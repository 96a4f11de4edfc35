export {
  type ControlPlaneConfig,
  type ControlPlaneConfigInput,
  DEFAULT_CONTROL_PLANE_PORT,
  parseControlPlaneConfig,
} from "./config.js";
export { isSettledStatus } from "./domain/revision-status.js";
export type { OpenApiDocument } from "./http/api-documents.js";
export { tracingEnvironment } from "./runtime/local/environment.js";
export { closedAncestor } from "./runtime/local/isolation-setup.js";
export {
  type ControlPlane,
  createControlPlane,
  type RunningControlPlane,
  type StartOptions,
  startControlPlane,
} from "./server.js";
export { UnknownBootstrapKeyError } from "./services/auth.js";
export {
  listWorkspacesOffline,
  mintOfflineKey,
  type OfflineKeyRequest,
  type StateLocation,
} from "./services/offline-keys.js";
export { CONTROL_PLANE_VERSION } from "./version.js";
