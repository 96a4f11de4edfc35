/**
 * The program a child of the embedded agent-server cluster runs (`--workers N`): its primary forks
 * it with the parsed config in the environment and `--log-format` as its only argument.
 */
import { readClusterChildConfig, runClusterChild } from "@berth-platform/agent-server";
import { resolveLogFormat } from "./log-format.js";
import { makeLogger } from "./logger.js";

const config = readClusterChildConfig(process.env);
if (!config) {
  process.stderr.write("berth: this program is started by `berth dev|serve --workers N`\n");
  process.exit(2);
}
const formatAt = process.argv.indexOf("--log-format");
const format = resolveLogFormat(formatAt >= 0 ? process.argv[formatAt + 1] : undefined, false);
const logger = makeLogger(config.logLevel, format).child({ worker: config.cluster?.index });
runClusterChild(config, logger).catch((error: unknown) => {
  logger.error({ err: error }, "agent server worker could not start");
  process.exit(1);
});
