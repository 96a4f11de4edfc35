import { type Command, Option } from "commander";

/** `berth serve`: the agent server for containers and scaled-out deployments (no banner, JSON logs). */
export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description(
      "Run the agent server as a service: JSON logs, graceful SIGTERM drain, API and queue-worker roles.",
    )
    .option("-c, --config <path>", "graph configuration file (default: ./graph.json, else ./langgraph.json)")
    .option("-p, --port <port>", "port to listen on (env PORT; default 2024, 0 picks a free one)")
    .addOption(new Option("--host <host>", "interface to listen on").env("BERTH_HOST").default("0.0.0.0"))
    .option("--role <role>", "api, worker or all (env BERTH_ROLE; default all)")
    .option("--database-url <url>", "PostgreSQL shared by every process (env DATABASE_URI)")
    .option("--redis-url <url>", "Redis for signals and streams between processes (env REDIS_URI)")
    .option("--data-dir <dir>", "SQLite data directory when no database URL is given")
    .option("--n-jobs-per-worker <n>", "runs a worker executes at the same time (env N_JOBS_PER_WORKER)")
    .option(
      "--workers <n>",
      "server processes on the SQLite data directory, sharing the port (env BERTH_WORKERS; default: the number of cores; 1: one process)",
    )
    .addHelpText(
      "after",
      `
Environment (the official server's names where they exist):
  DATABASE_URI, REDIS_URI, REDIS_KEY_PREFIX, PORT, N_JOBS_PER_WORKER, BERTH_ROLE, BERTH_WORKERS
  BG_JOB_TIMEOUT_SECS, BG_JOB_MAX_RETRIES, BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS
  BERTH_DATABASE_SCHEMA, BERTH_DATABASE_POOL_SIZE, BERTH_LOG_LEVEL

Example (one of 2 API + 2 worker processes on one PostgreSQL and Redis):
  DATABASE_URI=postgresql://db/agents REDIS_URI=redis://redis:6379 berth serve --config graph.json --port 8000 --role api`,
    )
    .action(
      async (options: {
        config?: string;
        port?: string;
        host: string;
        role?: string;
        databaseUrl?: string;
        redisUrl?: string;
        dataDir?: string;
        nJobsPerWorker?: string;
        workers?: string;
      }) => {
        const [{ parseAgentServerConfig }, { pino }, { startAgentServerProcesses }] = await Promise.all([
          import("@berth-platform/agent-server"),
          import("pino"),
          import("../agent-server-start.js"),
        ]);
        const config = parseAgentServerConfig({
          flags: {
            config: options.config,
            port: options.port,
            host: options.host,
            dataDir: options.dataDir,
            jobsPerWorker: options.nJobsPerWorker,
            role: options.role,
            databaseUrl: options.databaseUrl,
            redisUrl: options.redisUrl,
            workers: options.workers,
          },
          env: process.env,
          cwd: process.cwd(),
        });
        const logger = pino({ level: config.logLevel });
        const server = await startAgentServerProcesses(config, { logger, logFormat: "json" });
        logger.info(
          {
            url: server.url,
            role: config.role,
            workers: config.workers,
            graphs: server.graphIds,
            graph_failures: server.graphFailures,
          },
          `listening on ${server.url} (role ${config.role})`,
        );
        await new Promise<void>((resolve) => {
          let stopping = false;
          const onSignal = (signal: NodeJS.Signals) => {
            if (stopping) process.exit(130);
            stopping = true;
            logger.info({ signal }, "draining: new requests get 503, running runs get the grace period");
            server.close().then(
              () => resolve(),
              (error: unknown) => {
                logger.error({ err: error }, "error while stopping");
                process.exitCode = 1;
                resolve();
              },
            );
          };
          process.once("SIGINT", onSignal);
          process.once("SIGTERM", onSignal);
        });
        logger.info("stopped");
        // A graph node that ignores its abort must not keep the process alive past the drain.
        setTimeout(() => process.exit(process.exitCode ?? 0), 1_000).unref();
      },
    );
}
