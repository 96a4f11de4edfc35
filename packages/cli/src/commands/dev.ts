import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { printDevBanner } from "../banner.js";
import { exitWithSupervisor, superviseDev } from "../dev-watch.js";
import { ignoreDataDir } from "../gitignore.js";
import { logFormatOption, resolveLogFormat } from "../log-format.js";
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
    .option("--n-jobs-per-worker <n>", "runs executed at the same time by each worker (default: 10)")
    .option(
      "--workers <n>",
      "server processes sharing the port and the data directory (env BERTH_WORKERS; default 1: one process, as the official dev server; with more, each process has its own copy of the graph modules and their in-memory state)",
    )
    .option(
      "--wait-for-lock",
      "serve while another process holds the data directory; run the queue once it exits (hand-over)",
    )
    .option("--database-url <url>", "PostgreSQL instead of the SQLite data directory (env DATABASE_URI)")
    .option("--redis-url <url>", "Redis for signals and streams between processes (env REDIS_URI)")
    .addOption(logFormatOption())
    .option("--check", "only import every graph, report what does not load, and exit (1 on a failure)")
    .option(
      "--cache-schemas",
      "with --check: also parse the graphs' TypeScript types into <project>/.berth/schemas, where a server started on these files finds them (a revision's build does this)",
    )
    .option("--watch", "restart the server when a project file changes (the default)", true)
    .option("--no-watch", "do not watch the project's files")
    .addHelpText(
      "after",
      `
Environment:
  BERTH_LOG_LEVEL          log level (default info)
  BERTH_WORKERS            server processes (default 1; as --workers)
  BERTH_SCHEMA_WARMUP      0: read graph schemas from TypeScript types on the first request, not at start-up
  LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS  limit of that parse (default 120000)
  BG_JOB_TIMEOUT_SECS      run time limit in seconds (default 3600)
  BG_JOB_MAX_RETRIES       attempts of a run interrupted by a crash (default 3)
  BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS  time running runs get after SIGTERM (default 10)
  BERTH_REQUEST_TIMEOUT_SECS         time a client has to send a whole request (default 60)
  BERTH_MAX_CONNECTIONS              open connections at most (default 1024)

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
        workers?: string;
        waitForLock?: boolean;
        databaseUrl?: string;
        redisUrl?: string;
        check?: boolean;
        cacheSchemas?: boolean;
        watch: boolean;
        logFormat?: string;
      }) => {
        // The agent server loads when a command needs it, not for `berth --help`.
        const { parseAgentServerConfig } = await import("@berth-platform/agent-server");
        const config = parseAgentServerConfig({
          flags: {
            config: options.config,
            port: options.port,
            host: options.host,
            dataDir: options.dataDir,
            jobsPerWorker: options.nJobsPerWorker,
            waitForLock: options.waitForLock,
            databaseUrl: options.databaseUrl,
            redisUrl: options.redisUrl,
            workers: options.workers,
            defaultWorkers: 1,
          },
          env: process.env,
          cwd: process.cwd(),
        });
        if (options.check) {
          process.exitCode = await reportGraphCheck(
            config.graphConfigPath,
            options.cacheSchemas ? config.schemaTimeoutMs : undefined,
          );
          // Graph modules may leave timers or sockets open: the check is over.
          setTimeout(() => process.exit(process.exitCode ?? 0), 100).unref();
          return;
        }
        const supervised = process.env.BERTH_DEV_SUPERVISED === "1";
        const projectDir = path.dirname(config.graphConfigPath);
        if (!supervised) {
          const added = ignoreDataDir(projectDir, config.dataDir);
          if (added) process.stdout.write(`  Added ${added} to ${path.join(projectDir, ".gitignore")}\n`);
        }
        if (options.watch) {
          process.exitCode = await superviseDev({
            bin: fileURLToPath(new URL("../../bin/berth.js", import.meta.url)),
            args: [
              "--config",
              config.graphConfigPath,
              "--host",
              config.host,
              "--data-dir",
              config.dataDir,
              ...(options.port !== undefined ? ["--port", options.port] : []),
              ...(options.nJobsPerWorker !== undefined
                ? ["--n-jobs-per-worker", options.nJobsPerWorker]
                : []),
              ...(options.workers !== undefined ? ["--workers", options.workers] : []),
              ...(options.waitForLock ? ["--wait-for-lock"] : []),
              ...(options.databaseUrl !== undefined ? ["--database-url", options.databaseUrl] : []),
              ...(options.redisUrl !== undefined ? ["--redis-url", options.redisUrl] : []),
              // The child's stdout is piped through this process: decide the format here.
              "--log-format",
              resolveLogFormat(options.logFormat, process.stdout.isTTY === true),
            ],
            projectDir,
            dataDir: config.dataDir,
          });
          return;
        }
        if (supervised) exitWithSupervisor();
        const logFormat = resolveLogFormat(options.logFormat, process.stdout.isTTY === true);
        const [{ startAgentServerProcesses }, { makeLogger }] = await Promise.all([
          import("../agent-server-start.js"),
          import("../logger.js"),
        ]);
        const server = await startAgentServerProcesses(config, {
          logger: makeLogger(config.logLevel, logFormat),
          logFormat,
          onPortMoved: (from, to) =>
            process.stderr.write(`Port ${from} is in use; listening on ${to} instead.\n`),
        });
        printDevBanner(server, config.dataDir, config.agentToken !== null);
        await closeOnSignal(server, "runs still going after the grace period return to the queue");
        // A graph node that ignores its abort must not keep the process alive past the drain.
        setTimeout(() => process.exit(process.exitCode ?? 0), 1_000).unref();
      },
    );
}

/** Prints each graph's load result; 1 when one does not load. */
/**
 * Imports every graph; with a schema timeout, also parses the TypeScript types of those that need
 * it into the project's schema cache (a revision's build: its server then answers /schemas at
 * once). A graph whose types cannot be read is a warning (its schemas are untyped), not a failure.
 */
async function reportGraphCheck(configPath: string, schemaTimeoutMs: number | undefined): Promise<number> {
  const { checkGraphProject } = await import("@berth-platform/agent-server");
  const results = await checkGraphProject(
    configPath,
    process.env,
    schemaTimeoutMs === undefined
      ? undefined
      : {
          timeoutMs: schemaTimeoutMs,
          onFailure: (graphId, reason) =>
            process.stderr.write(`graph ${graphId}: its TypeScript types could not be read (${reason})\n`),
        },
  );
  for (const { graphId, error } of results) {
    // Every line is marked: a build log files each line by its level, and all of these are the error.
    if (error)
      process.stderr.write(`ERROR graph ${graphId} does not load: ${error.split("\n").join("\nERROR   ")}\n`);
    else process.stdout.write(`graph ${graphId} loads\n`);
  }
  return results.some((r) => r.error) ? 1 : 0;
}
