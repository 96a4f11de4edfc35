import { parseControlPlaneConfig, type RunningControlPlane, startControlPlane } from "@berth/control-plane";
import type { Command } from "commander";
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
    .addHelpText(
      "after",
      `
On first start with an empty data directory Berth creates a workspace and an admin API key and
prints the key once (only its hash is stored). Send it as X-Api-Key on every request.

Environment:
  BERTH_API_KEY        same as --api-key
  BERTH_SECRETS_KEY    32-byte base64 key for secrets at rest (default: generated into the data dir)
  BERTH_LOG_LEVEL      log level (default info)

Example:
  berth up --port 0 --data-dir /tmp/berth --api-key "$(openssl rand -hex 24)"`,
    )
    .action(async (options: { port?: string; host?: string; dataDir?: string; apiKey?: string }) => {
      const config = parseControlPlaneConfig({
        flags: { port: options.port, host: options.host, dataDir: options.dataDir, apiKey: options.apiKey },
        env: process.env,
        cwd: process.cwd(),
      });
      const plane = await startControlPlane(config, {
        onPortMoved: (from, to) =>
          process.stderr.write(`Port ${from} is in use; listening on ${to} instead.\n`),
      });
      printUpBanner(plane, config.dataDir);
      await closeOnSignal(plane, "");
    });
}

function printUpBanner(plane: RunningControlPlane, dataDir: string): void {
  const lines = [
    "",
    `  Berth control plane listening on ${plane.url}`,
    `  Data: ${dataDir}`,
    `  API:  ${plane.url}/docs`,
  ];
  if (plane.bootstrap.generatedKey) {
    lines.push(
      "",
      "  Admin API key (shown only this once; store it now):",
      `    ${plane.bootstrap.generatedKey}`,
      "",
      `  Try it: curl -s ${plane.url}/v2/deployments -H "X-Api-Key: <the key>"`,
    );
  }
  if (plane.bootstrap.ignoredConfiguredKey) {
    lines.push(
      "",
      "  Note: the given --api-key/BERTH_API_KEY is not a key of this data directory; it was not added.",
    );
  }
  lines.push("  Stop with Ctrl+C.", "");
  process.stdout.write(`${lines.join("\n")}\n`);
}
