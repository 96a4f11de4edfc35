import type { Logger } from "pino";
import type { RevisionLog } from "../types.js";
import { AgentProcess, type AgentProcessPlan, stderrFileOf } from "./agent-process.js";
import { freePort } from "./free-port.js";
import { FileTail } from "./log-tail.js";
import { parseServerLine } from "./server-log.js";

/** Restart delays after crashes: doubling from 1 s to 30 s, reset once a process lived a minute. */
const BACKOFF_MIN_MS = 1_000;
const BACKOFF_MAX_MS = 30_000;
const STABLE_MS = 60_000;

/** What a supervised agent reports to its owner. */
export interface SupervisionEvents {
  /** The process changed (a restart): persist the new pid and port. */
  onRestarted(process: AgentProcess): void;
}

/**
 * One deployment's serving agent server, restarted with backoff when it crashes, its output
 * followed into the revision's deploy log.
 */
export class SupervisedAgent {
  #process: AgentProcess;
  #tail: LogTail;
  #retired = false;
  #backoffMs = BACKOFF_MIN_MS;
  #startedAt = Date.now();
  #restartTimer: NodeJS.Timeout | null = null;

  constructor(
    process: AgentProcess,
    readonly revisionId: string,
    private readonly plan: AgentProcessPlan,
    private readonly log: RevisionLog,
    private readonly logger: Logger,
    private readonly events: SupervisionEvents,
    tail?: LogTail,
  ) {
    this.#process = process;
    this.#tail = tail ?? followLog(plan.logFile, log, { fromEnd: true });
    this.#watch();
  }

  /** Whether it shares the deployment's data directory with other agent servers (Redis mode). */
  get shared(): boolean {
    return this.plan.shared;
  }

  /** The process serving now. */
  get process(): AgentProcess {
    return this.#process;
  }

  /** Stops supervising, then stops the process (SIGTERM, SIGKILL after `graceMs`). */
  async retire(graceMs: number): Promise<void> {
    this.#retired = true;
    if (this.#restartTimer) clearTimeout(this.#restartTimer);
    await this.#process.stop(graceMs);
    this.#tail.stop();
  }

  #watch(): void {
    const current = this.#process;
    void current.exited.then(() => {
      if (this.#retired || current !== this.#process) return;
      if (Date.now() - this.#startedAt >= STABLE_MS) this.#backoffMs = BACKOFF_MIN_MS;
      const delay = this.#backoffMs;
      this.#backoffMs = Math.min(this.#backoffMs * 2, BACKOFF_MAX_MS);
      const code = current.exitCode;
      this.log(
        "deploy",
        "ERROR",
        `Agent server exited unexpectedly (${code === null ? "signal or unknown code" : `exit code ${code}`}); restarting in ${delay / 1000} s.`,
      );
      this.logger.warn({ revisionId: this.revisionId, code, delay }, "agent server exited; restarting");
      this.#restartTimer = setTimeout(() => void this.#restart(), delay);
      this.#restartTimer.unref();
    });
  }

  async #restart(): Promise<void> {
    if (this.#retired) return;
    try {
      const port = await freePort();
      this.#process = AgentProcess.start({ ...this.plan, port, args: withPort(this.plan.args, port) });
      this.#startedAt = Date.now();
      this.events.onRestarted(this.#process);
      this.#watch();
    } catch (error) {
      this.logger.error({ err: error, revisionId: this.revisionId }, "could not restart the agent server");
      this.#restartTimer = setTimeout(() => void this.#restart(), this.#backoffMs);
      this.#restartTimer.unref();
    }
  }
}

/** Something that follows output and can be stopped (after a last read). */
export interface LogTail {
  stop(): void;
}

/** Follows an agent server's stdout and stderr files into the revision's deploy log, each line at its level. */
export function followLog(file: string, log: RevisionLog, options: { fromEnd?: boolean } = {}): LogTail {
  const tails = (["stdout", "stderr"] as const).map((stream) =>
    new FileTail(
      stream === "stdout" ? file : stderrFileOf(file),
      (line) => {
        const parsed = parseServerLine(line, stream);
        log("deploy", parsed.level, parsed.message);
      },
      options,
    ).start(),
  );
  return {
    stop: () => {
      for (const t of tails) t.stop();
    },
  };
}

function withPort(args: string[], port: number): string[] {
  const copy = [...args];
  const at = copy.indexOf("--port");
  if (at >= 0) copy[at + 1] = String(port);
  return copy;
}
