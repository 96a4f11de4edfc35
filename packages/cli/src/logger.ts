import { type Logger, pino } from "pino";
import pretty from "pino-pretty";
import type { LogFormat } from "./log-format.js";

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
