import type { Logger } from "pino";
import type { AgentServerConfig } from "../config.js";
import { startAgentServer } from "../server.js";
import type { ChildMessage } from "./protocol.js";

/**
 * The life of one child of the embedded cluster: start an agent server from the config its primary
 * handed down, say `ready`, and drain (SIGTERM semantics) when the primary asks or on SIGINT/SIGTERM,
 * then exit; exit at once when the primary is gone. A stop asked for while starting drains once
 * started.
 */
export async function runClusterChild(config: AgentServerConfig, logger: Logger): Promise<void> {
  let stopAsked: () => void = () => {};
  let stopping = false;
  const stopped = new Promise<void>((resolve) => (stopAsked = resolve));
  const stop = () => {
    stopping = true;
    stopAsked();
  };
  process.on("message", (message: unknown) => {
    if ((message as { t?: unknown } | null)?.t === "drain") stop();
  });
  // Ctrl+C reaches the children too, and the primary asks again: one drain, however asked.
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  // The channel closing unasked means the primary died (kill -9, a crash): a supervisor that dies
  // takes its children with it, at once. A drain here would keep serving for its grace period,
  // beside the primary's restart; the runs this child holds are recovered by that restart (their
  // leases are in the database). node:cluster's own worker code exits on such a disconnect too;
  // this says so here rather than relying on it.
  process.on("disconnect", () => {
    if (stopping) return;
    logger.error("the cluster's primary is gone: exiting at once");
    process.exit(1);
  });
  let server: Awaited<ReturnType<typeof startAgentServer>>;
  try {
    server = await startAgentServer(config, { logger, processEnv: process.env });
  } catch (error) {
    // Every child would fail alike: the primary says why once, as one process would.
    if (!process.connected) throw error;
    const failed: ChildMessage = {
      t: "failed",
      message: error instanceof Error ? error.message : String(error),
    };
    await new Promise<void>((resolve) => process.send?.(failed, undefined, {}, () => resolve()));
    process.exit(1);
  }
  const ready: ChildMessage = { t: "ready", graphIds: server.graphIds, graphFailures: server.graphFailures };
  process.send?.(ready);
  await stopped;
  try {
    await server.close();
  } catch (error) {
    logger.error({ err: error }, "error while stopping");
    process.exitCode = 1;
  }
  // A graph node that ignores its abort must not keep the process alive past the drain.
  setTimeout(() => process.exit(process.exitCode ?? 0), 1_000).unref();
  // The hub channel writes once per event-loop turn: what the drain sent last goes out first.
  await new Promise((resolve) => setImmediate(resolve));
  if (process.connected) process.disconnect();
}
