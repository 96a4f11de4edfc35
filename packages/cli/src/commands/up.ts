import { fileURLToPath } from "node:url";
import type { RunningControlPlane } from "@berth-platform/control-plane";
import { isSettledStatus } from "@berth-platform/control-plane/revision-status";
import type { Command } from "commander";
import { logFormatOption, resolveLogFormat } from "../log-format.js";
import { recordUpProfile } from "../profiles.js";
import { closeOnSignal } from "../shutdown.js";

/** `berth up`: the control plane (the /v2/deployments API) on this machine. */
export function registerUpCommand(program: Command): void {
  program
    .command("up")
    .description("Run the Berth control plane: the deployments API (/v2/deployments) on this machine.")
    .option(
      "-p, --port <port>",
      "port to listen on; 0 picks a free one (default: 8124, or the next free port)",
    )
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .option(
      "--data-dir <dir>",
      "where deployments, keys and the secrets key are kept (default: ./.berth/control-plane)",
    )
    .option(
      "--api-key <key>",
      "admin API key to create on first start instead of a generated one (or BERTH_API_KEY)",
    )
    .option(
      "--database-url <url>",
      "keep state in PostgreSQL (postgresql://…) instead of SQLite in the data dir (or BERTH_DATABASE_URL)",
    )
    .option(
      "--redis-url <url>",
      "Redis for the deployments' agent servers (or REDIS_URI): a new revision serves at once while the old one finishes its runs",
    )
    .addOption(logFormatOption())
    .option("--no-example", "do not create the example-agent deployment on first start")
    .option(
      "--no-runtime",
      "only serve the API: revisions wait at AWAITING_BUILD instead of being built and run",
    )
    .addHelpText(
      "after",
      `
On first start with an empty data directory Berth creates a workspace and an admin API key and
prints the key once (only its hash is stored). Send it as X-Api-Key on every request. It also
deploys the bundled ReAct agent template as "example-agent" and prints its URL.

Each deployment's revisions are built and run on this machine: one agent server process per
deployment, reached at <control plane URL>/agents/<deployment id> (its custom_url) with the
same API key. Stopping berth up stops them; the next start brings them back.

Environment:
  BERTH_API_KEY        same as --api-key
  BERTH_DATABASE_URL   same as --database-url (plain DATABASE_URL is not read)
  REDIS_URI            same as --redis-url (without Redis, a revision switch holds the
                       deployment's new requests while the old revision drains)
  BERTH_SECRETS_KEY    32-byte base64 key for secrets at rest (default: generated into the data dir)
  BERTH_LOG_LEVEL      log level (default info)
  BERTH_BUILD_TIMEOUT_SECS   time limit of an install/build command or git clone (default 900)
  BERTH_DEPLOY_TIMEOUT_SECS  time a new agent server has to answer GET /ok (default 120)
  BERTH_DRAIN_SECS           time a replaced agent server has to finish its runs (default 15)
  BERTH_GIT_HOSTS            name=directory|name=https://git.host/prefix,… trusted git hosts
                             (repo_host integrations; other repo_urls must be public addresses)
  BERTH_WORKSPACE_USERS      auto|on|off: a separate OS user per workspace (auto: when root)
  BERTH_SANDBOX              auto|on|off: bubblewrap sandbox for builds and agent servers
  BERTH_REQUEST_TIMEOUT_SECS time a client has to send a whole request (default 60)
  BERTH_MAX_CONNECTIONS      open connections at most (default 1024)
  BERTH_STUDIO_URL           LangGraph Studio for "Open in Studio" links (default https://smith.langchain.com)
  BERTH_DOCS_WARMUP          0: make /docs's document on its first request, not 3 s after start

Example:
  berth up --port 0 --data-dir /tmp/berth --api-key "$(openssl rand -hex 24)"`,
    )
    .action(
      async (options: {
        port?: string;
        host?: string;
        dataDir?: string;
        apiKey?: string;
        databaseUrl?: string;
        redisUrl?: string;
        example: boolean;
        runtime: boolean;
        logFormat?: string;
      }) => {
        const [{ parseControlPlaneConfig, startControlPlane }, { makeLogger }] = await Promise.all([
          import("@berth-platform/control-plane"),
          import("../logger.js"),
        ]);
        const config = parseControlPlaneConfig({
          flags: {
            port: options.port,
            host: options.host,
            dataDir: options.dataDir,
            apiKey: options.apiKey,
            databaseUrl: options.databaseUrl,
            redisUrl: options.redisUrl,
          },
          env: process.env,
          cwd: process.cwd(),
        });
        const logger = makeLogger(
          config.logLevel,
          resolveLogFormat(options.logFormat, process.stdout.isTTY === true),
        );
        const plane = await startControlPlane(config, {
          logger,
          agentCommand: options.runtime ? agentServerCommand() : undefined,
          processEnv: process.env,
          exampleTemplateId: options.runtime && options.example ? "react-agent" : undefined,
          // /docs lists the agent servers' API too; loaded on its first request only.
          agentApiDocument: async () =>
            (await import("@berth-platform/agent-server/openapi")).agentApiDocument(),
          onPortMoved: (from, to) =>
            process.stderr.write(`Port ${from} is in use; listening on ${to} instead.\n`),
        });
        const profile = recordUpProfile({
          url: plane.url,
          dataDir: stateLocation(config.dataDir, config.databaseUrl),
          apiKey: config.bootstrapApiKey ?? plane.bootstrap.generatedKey,
          pid: process.pid,
        });
        printUpBanner(plane, config.dataDir, profile);
        const watching = plane.exampleDeployment ? watchExample(plane) : undefined;
        await closeOnSignal(plane, "agent servers stop too; they come back on the next start");
        watching?.stop();
      },
    );
}

/** Where this control plane keeps its keys (which control plane it is): the database if any, without credentials. */
function stateLocation(dataDir: string, databaseUrl: string | null): string {
  if (!databaseUrl) return dataDir;
  try {
    const url = new URL(databaseUrl);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return dataDir;
  }
}

/** `node <this CLI> dev`: how the local runtime starts each deployment's agent server. */
function agentServerCommand(): string[] {
  return [process.execPath, fileURLToPath(new URL("../../bin/berth.js", import.meta.url)), "dev"];
}

/** Prints the example deployment's revision statuses until it settles, then how to call it. */
function watchExample(plane: RunningControlPlane): { stop(): void } {
  const deployment = plane.exampleDeployment;
  let last = "";
  const timer = setInterval(async () => {
    if (!deployment?.latest_revision_id) return;
    const revision = await plane.storage.revisions
      .get(deployment.tenant_id, deployment.id, deployment.latest_revision_id)
      .catch(() => undefined);
    if (!revision || revision.status === last) return;
    last = revision.status;
    process.stdout.write(`  example-agent: ${revision.status}\n`);
    if (!isSettledStatus(revision.status)) return;
    clearInterval(timer);
    const url = plane.agentUrls.of(deployment.id);
    process.stdout.write(
      revision.status === "DEPLOYED"
        ? [
            "",
            `  Example agent ready: ${url}`,
            "  With the official SDK:",
            `    new Client({ apiUrl: "${url}", apiKey: "<the admin key>" })`,
            `  Or: curl -s ${url}/assistants/search -X POST -H "X-Api-Key: <the admin key>" -H 'content-type: application/json' -d '{}'`,
            "",
          ].join("\n")
        : `  The example agent did not deploy; see GET /v2/deployments/${deployment.id}/revisions/${revision.id}/logs\n`,
    );
  }, 300);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

function printUpBanner(
  plane: RunningControlPlane,
  dataDir: string,
  profile: { name: string; current: boolean } | undefined,
): void {
  const lines = [
    "",
    `  Berth control plane listening on ${plane.url}`,
    `  Data: ${dataDir}`,
    `  Web:  ${plane.url}/ (the dashboard: sign in with an API key)`,
    `  API:  ${plane.url}/docs`,
  ];
  if (profile) {
    lines.push(
      profile.current
        ? `  CLI:  profile ${profile.name} (current: berth commands use it)`
        : `  CLI:  profile ${profile.name} saved; another is current (berth profile use ${profile.name} to switch)`,
    );
  }
  if (plane.bootstrap.generatedKey) {
    lines.push(
      "",
      "  Admin API key (shown only this once; store it now):",
      `    ${plane.bootstrap.generatedKey}`,
      "",
      `  Try it: curl -s ${plane.url}/v2/deployments -H "X-Api-Key: <the key>"`,
    );
  }
  lines.push("  Stop with Ctrl+C.", "");
  process.stdout.write(`${lines.join("\n")}\n`);
}
