import { parseAgentServerConfig, startAgentServer } from "@berth/agent-server";
import type { Command } from "commander";
import { printDevBanner } from "../banner.js";
import { closeOnSignal } from "../shutdown.js";

/** `berth dev`: an agent server for one graph project, like `langgraph dev`. */
export function registerDevCommand(program: Command): void {
  program
    .command("dev")
    .description("Run an agent server for a graph project (graph.json or langgraph.json) on this machine.")
    .option("-c, --config <path>", "graph configuration file (default: ./graph.json, else ./langgraph.json)")
    .option(
      "-p, --port <port>",
      "port to listen on; 0 picks a free one (default: 2024, or the next free port)",
    )
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .option(
      "--data-dir <dir>",
      "where threads, runs and checkpoints are kept (default: <project>/.berth/agent-server)",
    )
    .option("--n-jobs-per-worker <n>", "runs executed at the same time (default: 10)")
    .option(
      "--wait-for-lock",
      "serve while another process holds the data directory; run the queue once it exits (hand-over)",
    )
    .addHelpText(
      "after",
      `
Environment:
  BERTH_LOG_LEVEL          log level (default info)
  BG_JOB_TIMEOUT_SECS      run time limit in seconds (default 3600)
  BG_JOB_MAX_RETRIES       attempts of a run interrupted by a crash (default 3)

Example:
  berth dev --config examples/react-agent/graph.json --port 0`,
    )
    .action(
      async (options: {
        config?: string;
        port?: string;
        host?: string;
        dataDir?: string;
        nJobsPerWorker?: string;
        waitForLock?: boolean;
      }) => {
        const config = parseAgentServerConfig({
          flags: {
            config: options.config,
            port: options.port,
            host: options.host,
            dataDir: options.dataDir,
            jobsPerWorker: options.nJobsPerWorker,
            waitForLock: options.waitForLock,
          },
          env: process.env,
          cwd: process.cwd(),
        });
        const server = await startAgentServer(config, {
          processEnv: process.env,
          onPortMoved: (from, to) =>
            process.stderr.write(`Port ${from} is in use; listening on ${to} instead.\n`),
        });
        printDevBanner(server, config.dataDir);
        await closeOnSignal(server, "runs still going after the grace period return to the queue");
      },
    );
}
