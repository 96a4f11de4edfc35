/** A line of an agent server's output as a deploy log line. */
export interface ParsedLine {
  level: "INFO" | "WARNING" | "ERROR";
  message: string;
}

/**
 * Agent servers log pino JSON (`{"level":30,"msg":"…"}`); the deploy log shows its level and
 * message (plus the error's message when there is one). Other lines (the banner) pass as INFO.
 */
export function parseServerLine(line: string): ParsedLine {
  if (!line.startsWith("{")) return { level: "INFO", message: line };
  try {
    const record = JSON.parse(line) as { level?: unknown; msg?: unknown; err?: { message?: unknown } };
    const level = typeof record.level === "number" ? record.level : 30;
    const err = typeof record.err?.message === "string" ? `: ${record.err.message}` : "";
    return {
      level: level >= 50 ? "ERROR" : level >= 40 ? "WARNING" : "INFO",
      message: `${typeof record.msg === "string" ? record.msg : line}${err}`,
    };
  } catch {
    return { level: "INFO", message: line };
  }
}
