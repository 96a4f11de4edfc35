export { type AgentServerConfig, type AgentServerConfigInput, parseAgentServerConfig } from "./config.js";
export { systemAssistantId } from "./graphs/assistant-id.js";
export { checkGraphProject, type GraphCheck } from "./graphs/check.js";
export { GraphLoadError } from "./graphs/load.js";
export { GraphConfigError, parseGraphConfig } from "./graphs/spec.js";
export { type AgentServer, type StartOptions, startAgentServer } from "./server.js";
export { AGENT_SERVER_VERSION } from "./version.js";
