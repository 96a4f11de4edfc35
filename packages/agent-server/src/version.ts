/** Berth's agent server version, reported by `/info` and in run metadata. */
export const AGENT_SERVER_VERSION = "0.1.0";
