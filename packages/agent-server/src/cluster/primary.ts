import cluster, { type Worker } from "node:cluster";
import { randomUUID } from "node:crypto";
import net, { type AddressInfo } from "node:net";
import type { Logger } from "pino";
import { type AgentServerConfig, CLUSTER_CHILD_CONFIG_ENV, clusterChildConfig } from "../config.js";
import { readGraphProject } from "../graphs/project.js";
import { openSqliteBackend } from "../storage/sqlite/index.js";
import type { StorageBackend } from "../storage/types.js";
import { ClusterHub } from "./hub.js";
import { BatchedSender, unbatch } from "./ipc-batch.js";
import type { ChildMessage, HubMessage } from "./protocol.js";

/** A running embedded cluster, as the CLI sees a server. */
export interface AgentCluster {
  readonly url: string;
  readonly graphIds: string[];
  readonly graphFailures: Record<string, string>;
  /** Drains every child (SIGTERM semantics), then releases the data directory. */
  close(): Promise<void>;
}

/** What the embedding program decides. */
export interface ClusterOptions {
  logger: Logger;
  /** The script a child runs (it reads its config from the environment and starts one agent server). */
  childEntry: string;
  childArgs?: string[];
  onPortMoved?: (from: number, to: number) => void;
}

/** A child that keeps dying this soon after its start is restarted with a growing delay. */
const QUICK_DEATH_MS = 5_000;
const MAX_RESTART_DELAY_MS = 10_000;
const PORT_FALLBACK_TRIES = 20;

/**
 * `--workers N` on the embedded SQLite files: this process takes the data directory's lock,
 * migrates, recovers the runs a previous server left running, then forks N children (node:cluster,
 * so they share the listening port and every core parses HTTP and executes graphs). Each child is a
 * full agent server on the same files without the lock; this process is the hub of their signals
 * and streams, restarts a child that dies and hands its runs back to the queue at once (fencing
 * stops a late write of the dead child's).
 */
export async function startAgentCluster(
  config: AgentServerConfig,
  options: ClusterOptions,
): Promise<AgentCluster> {
  if (!cluster.isPrimary) throw new Error("startAgentCluster runs in a cluster's primary process");
  const { logger } = options;
  // A configuration error is said once, as by one process, instead of by every child as it dies.
  readGraphProject(config.graphConfigPath);
  const backend = await openSqliteBackend(config.dataDir, { otherWriters: true });
  const recovered = await backend.storage.runs.recover({
    liveOwner: "cluster-primary",
    nowMs: Date.now(),
    maxAttempts: config.maxAttempts,
    allForeign: true,
  });
  if (recovered.requeued.length || recovered.failed.length) {
    logger.warn(recovered, "recovered runs left running by a previous process");
  }
  let address: { url: string; port: number };
  try {
    address = await choosePort(config, options.onPortMoved);
  } catch (error) {
    await backend.storage.close();
    throw error;
  }
  const hub = new ClusterHub({
    ttlMs: config.resumableStreamTtlMs,
    runTtlMs: config.runTimeoutMs + config.resumableStreamTtlMs,
    maxEvents: 10_000,
  });
  const supervisor = new Supervisor(config, address.port, backend, hub, options);
  try {
    const ready = await supervisor.start();
    return {
      url: address.url,
      graphIds: ready.graphIds,
      graphFailures: ready.graphFailures,
      close: () => supervisor.close(),
    };
  } catch (error) {
    await supervisor.close();
    throw error;
  }
}

interface Slot {
  index: number;
  worker: Worker | undefined;
  owner: string;
  startedAt: number;
  restartDelayMs: number;
}

type Ready = { graphIds: string[]; graphFailures: Record<string, string> };

/** Forks, watches and restarts the children; routes their messages to the hub. */
class Supervisor {
  private readonly slots: Slot[] = [];
  private stopping = false;
  /** All children served once: from then on a dead child is restarted rather than failing the start. */
  private started = false;
  private closing: Promise<void> | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly config: AgentServerConfig,
    private readonly port: number,
    private readonly backend: StorageBackend,
    private readonly hub: ClusterHub,
    private readonly options: ClusterOptions,
  ) {}

  /** Forks every child; resolves once all serve (what the first one loaded), rejects if one cannot start. */
  async start(): Promise<Ready> {
    cluster.setupPrimary({
      exec: this.options.childEntry,
      args: this.options.childArgs ?? [],
      silent: false,
    });
    const readies: Promise<Ready>[] = [];
    for (let index = 0; index < this.config.workers; index += 1) {
      const slot: Slot = { index, worker: undefined, owner: "", startedAt: 0, restartDelayMs: 250 };
      this.slots.push(slot);
      readies.push(this.fork(slot));
    }
    const all = await Promise.all(readies);
    this.started = true;
    return all[0] ?? { graphIds: [], graphFailures: {} };
  }

  private fork(slot: Slot): Promise<Ready> {
    slot.owner = `worker-${slot.index}-${randomUUID()}`;
    slot.startedAt = Date.now();
    const childConfig = clusterChildConfig(this.config, { index: slot.index, owner: slot.owner }, this.port);
    const worker = cluster.fork({ [CLUSTER_CHILD_CONFIG_ENV]: JSON.stringify(childConfig) });
    slot.worker = worker;
    const id = worker.id;
    const out = new BatchedSender<HubMessage>((wire) => {
      if (worker.isConnected()) worker.send(wire);
    });
    this.hub.attach(id, (message) => out.send(message));
    return new Promise<Ready>((resolve, reject) => {
      let ready = false;
      let failure: string | undefined;
      worker.on("message", (value: unknown) => {
        for (const m of unbatch<ChildMessage>(value)) {
          if (m.t === "ready") {
            ready = true;
            resolve({ graphIds: m.graphIds, graphFailures: m.graphFailures });
          } else if (m.t === "failed") failure = m.message;
          else this.hub.handle(id, m);
        }
      });
      worker.on("exit", (code, signal) => {
        this.hub.detach(id);
        if (!ready)
          reject(
            new Error(
              failure ?? `agent server worker ${slot.index} exited before serving (code ${code ?? signal})`,
            ),
          );
        if (slot.worker === worker) slot.worker = undefined;
        if (this.stopping) return;
        if (failure !== undefined && !this.started) return;
        this.options.logger.error(
          { worker: slot.index, pid: worker.process.pid, code, signal },
          "agent server worker died; its runs go back to the queue and it is restarted",
        );
        void this.recover(slot.owner);
        if (!this.started) return;
        const quick = Date.now() - slot.startedAt < QUICK_DEATH_MS;
        slot.restartDelayMs = quick ? Math.min(slot.restartDelayMs * 2, MAX_RESTART_DELAY_MS) : 250;
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          if (this.stopping) return;
          this.fork(slot).catch((error: unknown) =>
            this.options.logger.error(
              { err: error, worker: slot.index },
              "agent server worker did not restart",
            ),
          );
        }, slot.restartDelayMs);
        this.timers.add(timer);
      });
    });
  }

  /** The dead child's runs: back to the queue now (an attempt spent), not after their lease expires. */
  private async recover(owner: string): Promise<void> {
    try {
      const report = await this.backend.storage.runs.recover({
        liveOwner: "cluster-primary",
        nowMs: Date.now(),
        maxAttempts: this.config.maxAttempts,
        allForeign: true,
        deadOwner: owner,
      });
      if (report.requeued.length || report.failed.length) {
        this.options.logger.warn(report, "recovered the runs of a dead worker");
      }
      if (report.failed.length) this.hub.runsFailed(report.failed);
      if (report.requeued.length) this.hub.broadcast({ t: "door" });
    } catch (error) {
      // The other children's reapers take them once their leases expire.
      this.options.logger.error({ err: error }, "could not recover a dead worker's runs");
    }
  }

  close(): Promise<void> {
    this.closing ??= this.drain();
    return this.closing;
  }

  private async drain(): Promise<void> {
    this.stopping = true;
    for (const timer of this.timers) clearTimeout(timer);
    const exits = this.slots.flatMap((slot) => {
      const worker = slot.worker;
      if (!worker || worker.isDead()) return [];
      return [
        new Promise<void>((resolve) => {
          worker.once("exit", () => resolve());
          if (worker.isConnected()) worker.send({ t: "drain" });
          else worker.process.kill("SIGTERM");
        }),
      ];
    });
    // A child past its own drain deadline (runs ignoring their abort) is killed.
    const deadline = setTimeout(() => {
      for (const slot of this.slots) slot.worker?.process.kill("SIGKILL");
    }, this.config.shutdownGraceMs + 15_000);
    await Promise.all(exits);
    clearTimeout(deadline);
    this.hub.close();
    await this.backend.storage.close();
  }
}

/** The port every child listens on: the configured one, or with fallback the next free one. */
async function choosePort(
  config: AgentServerConfig,
  onPortMoved: ((from: number, to: number) => void) | undefined,
): Promise<{ url: string; port: number }> {
  const tries = config.portFallback ? PORT_FALLBACK_TRIES : 1;
  for (let i = 0; i < tries; i += 1) {
    const port = config.port === 0 ? 0 : config.port + i;
    const bound = await probe(config.host, port);
    if (!bound) continue;
    if (i > 0) onPortMoved?.(config.port, bound.port);
    const host = bound.family === "IPv6" ? `[${bound.address}]` : bound.address;
    return { url: `http://${host}:${bound.port}`, port: bound.port };
  }
  const last = config.port + tries - 1;
  throw new Error(
    tries > 1
      ? `Ports ${config.port}–${last} on ${config.host} are all in use; choose a free one with --port.`
      : `Port ${config.port} on ${config.host} is already in use; choose another with --port (0 picks a free one).`,
  );
}

/** Binds and releases `port`: its address when free, null when taken. */
function probe(host: string, port: number): Promise<AddressInfo | null> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") resolve(null);
      else reject(error);
    });
    server.listen({ host, port, exclusive: true }, () => {
      const address = server.address() as AddressInfo;
      server.close(() => resolve(address));
    });
  });
}
