#!/usr/bin/env node
// `berth-tracing`: the tracing service alone. BERTH_TRACING_API_KEY (required), BERTH_TRACING_FILE
// (default ./tracing.sqlite), PORT (default 1984), HOST (default 127.0.0.1).
import { startStandaloneTracing } from "./standalone.js";

const apiKey = process.env.BERTH_TRACING_API_KEY;
if (!apiKey) {
  process.stderr.write("Set BERTH_TRACING_API_KEY: the key clients send as LANGSMITH_API_KEY.\n");
  process.exit(2);
}
const server = await startStandaloneTracing({
  file: process.env.BERTH_TRACING_FILE ?? "tracing.sqlite",
  apiKey,
  port: Number(process.env.PORT ?? 1984),
  host: process.env.HOST ?? "127.0.0.1",
});
process.stdout.write(`Tracing at ${server.url} (LANGSMITH_ENDPOINT)\n`);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void server.close());
