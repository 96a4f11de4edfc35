import { Option } from "commander";
import { type Logger, pino } from "pino";
import pretty from "pino-pretty";

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

/** A pino logger at `level` writing `format` to stdout. */
export function makeLogger(level: string, format: LogFormat): Logger {
  if (format === "json") return pino({ level });
  return pino(
    { level },
    pretty({
      colorize: true,
      singleLine: true,
      translateTime: "HH:MM:ss",
      ignore: "pid,hostname",
      sync: true,
    }),
  );
}
