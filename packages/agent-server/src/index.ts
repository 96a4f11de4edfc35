export { runClusterChild } from "./cluster/child.js";
export { type AgentCluster, type ClusterOptions, startAgentCluster } from "./cluster/primary.js";
export {
  type AgentServerConfig,
  type AgentServerConfigInput,
  parseAgentServerConfig,
  readClusterChildConfig,
} from "./config.js";
export { systemAssistantId } from "./graphs/assistant-id.js";
export { checkGraphProject, type GraphCheck } from "./graphs/check.js";
export { GraphLoadError } from "./graphs/load.js";
export { GraphConfigError, parseGraphConfig } from "./graphs/spec.js";
export { type AgentServer, type StartOptions, startAgentServer } from "./server.js";
export { AGENT_SERVER_VERSION } from "./version.js";
