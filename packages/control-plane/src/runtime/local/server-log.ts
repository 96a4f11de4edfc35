/** A line of an agent server's output as a deploy log line. */
export interface ParsedLine {
  level: "INFO" | "WARNING" | "ERROR";
  message: string;
}

/**
 * Agent servers log pino JSON (`{"level":30,"msg":"…"}`); the deploy log shows its level and
 * message (plus the error's message when there is one). Other lines pass as INFO on stdout (the
 * banner) and as ERROR on stderr (a crash's stack, the CLI's fatal message), WARNING when Node
 * says it is a warning.
 */
export function parseServerLine(line: string, stream: "stdout" | "stderr" = "stdout"): ParsedLine {
  if (!line.startsWith("{")) return { level: plainLevel(line, stream), message: line };
  try {
    const record = JSON.parse(line) as { level?: unknown; msg?: unknown; err?: { message?: unknown } };
    const level = typeof record.level === "number" ? record.level : 30;
    const err = typeof record.err?.message === "string" ? `: ${record.err.message}` : "";
    return {
      level: level >= 50 ? "ERROR" : level >= 40 ? "WARNING" : "INFO",
      message: `${typeof record.msg === "string" ? record.msg : line}${err}`,
    };
  } catch {
    return { level: plainLevel(line, stream), message: line };
  }
}

function plainLevel(line: string, stream: "stdout" | "stderr"): ParsedLine["level"] {
  if (stream === "stdout") return "INFO";
  return /warning/i.test(line) && !/error/i.test(line) ? "WARNING" : "ERROR";
}
