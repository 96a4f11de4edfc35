import { fileURLToPath } from "node:url";
import { type AgentServerConfig, startAgentCluster, startAgentServer } from "@berth-platform/agent-server";
import type { Logger } from "pino";
import type { LogFormat } from "./log-format.js";

/** What `berth dev` and `berth serve` need of a started agent server, one process or a cluster. */
export interface StartedAgentServer {
  readonly url: string;
  readonly graphIds: string[];
  readonly graphFailures: Record<string, string>;
  close(): Promise<void>;
}

/** One agent server process (`--workers 1`) or a primary supervising `config.workers` children. */
export async function startAgentServerProcesses(
  config: AgentServerConfig,
  options: { logger: Logger; logFormat: LogFormat; onPortMoved?: (from: number, to: number) => void },
): Promise<StartedAgentServer> {
  if (config.workers <= 1) {
    return startAgentServer(config, {
      logger: options.logger,
      processEnv: process.env,
      onPortMoved: options.onPortMoved,
    });
  }
  return startAgentCluster(config, {
    logger: options.logger,
    childEntry: fileURLToPath(new URL("./cluster-child.js", import.meta.url)),
    childArgs: ["--log-format", options.logFormat],
    onPortMoved: options.onPortMoved,
  });
}
