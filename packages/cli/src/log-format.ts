// The --log-format option, apart from the logger itself: every command registers the option at
// start-up, and pino loads only when a command runs.
import { Option } from "commander";

/** How the servers' log lines are written. */
export type LogFormat = "json" | "pretty";

/** `--log-format`: pretty on a terminal (a person reads it), JSON otherwise (a collector reads it). */
export function logFormatOption(): Option {
  return new Option("--log-format <format>", "json or pretty (default: pretty on a terminal, else json)")
    .choices(["json", "pretty"])
    .env("BERTH_LOG_FORMAT");
}

/** The format to use: the one asked for, else by whether stdout is a terminal. */
export function resolveLogFormat(asked: string | undefined, isTty: boolean): LogFormat {
  if (asked === "json" || asked === "pretty") return asked;
  return isTty ? "pretty" : "json";
}
