export * from "./agent-server/assistants.js";
export * from "./agent-server/common.js";
export * from "./agent-server/crons.js";
export * from "./agent-server/runs.js";
export * from "./agent-server/store.js";
export * from "./agent-server/threads.js";
