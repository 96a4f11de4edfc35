import fs from "node:fs";
import path from "node:path";
import type { Logger } from "pino";
import type { Deployment, Source } from "../../domain/types.js";
import {
  type BuildResult,
  type DeploymentRuntime,
  type RevisionJob,
  type RunningAgent,
  RuntimeFailure,
} from "../types.js";
import { AgentProcess, isAgentOf, isHealthy } from "./agent-process.js";
import { Builder, type BuilderOptions, type BuiltRevision } from "./builder.js";
import type { AgentSettings } from "./environment.js";
import { freePort } from "./free-port.js";
import { InFlightRequests } from "./in-flight.js";
import { type DeploymentLayout, deploymentLayout } from "./layout.js";
import type { DeploymentRedisAccess } from "./redis-access.js";
import { planLocalResources } from "./resources.js";
import { newToken, planRevisionAgent } from "./revision-agent-plan.js";
import { readState, writeState } from "./runtime-state.js";
import { followLog, SupervisedAgent } from "./supervised-agent.js";

/** Settings of the local runtime, decided by the composition root. */
export interface LocalRuntimeOptions extends BuilderOptions {
  deploymentsDir: string;
  /** The program that runs an agent server, e.g. `[node, /…/berth.js, "dev"]`. */
  agentCommand: readonly string[];
  /** How long a new agent server has to answer its health check. */
  deployTimeoutMs: number;
  /** How long a replaced agent server may take to finish its runs before it is killed. */
  drainGraceMs: number;
  /** Finished builds kept per deployment beside the running one (for quick rollbacks). */
  keepBuilds: number;
  logger: Logger;
  /** The agent URL and tracing target each deployment's agent server is told (none: no tracing). */
  agentSettings?: (deployment: Deployment) => AgentSettings;
  /**
   * Redis the agent servers reach (`berth up --redis-url`, REDIS_URI), each deployment under its
   * own key prefix and ACL user; null: none, and a revision switch holds the deployment's new
   * requests while the old revision drains.
   */
  redis?: DeploymentRedisAccess | null;
}

const CONTAINER_SOURCES: readonly Source[] = ["external_container", "internal_container"];

/**
 * The embedded runtime: each deployment is one agent server process on this machine (`berth dev`
 * on a loopback port, the deployment's SQLite data in its directory). Blue/green: a new revision's
 * process starts beside the old one, and takes the data directory over when the old one exits;
 * with Redis both open the data directory at once and the new one serves at once.
 */
export class LocalRuntime implements DeploymentRuntime {
  readonly #agents = new Map<string, SupervisedAgent>();
  /** Deployments switching revisions: resolved once the new revision serves. */
  readonly #switching = new Map<string, Promise<void>>();
  readonly #builder: Builder;
  /** Proxied requests in flight per agent (a switch lets them finish on the old one first). */
  readonly #inFlight = new InFlightRequests<SupervisedAgent>();
  /** Replaced agents finishing their runs beside the new revision (shared mode), per deployment. */
  readonly #retiring = new Map<SupervisedAgent, { deploymentId: string; done: Promise<void> }>();

  constructor(private readonly options: LocalRuntimeOptions) {
    this.#builder = new Builder(options);
  }

  /** Agent server processes this runtime supervises now. */
  agentCount(): number {
    return this.#agents.size;
  }

  unsupportedReason(source: Source): string | null {
    return CONTAINER_SOURCES.includes(source)
      ? `Source '${source}' runs a container image, which needs a container runtime (the Kubernetes runtime); this control plane runs deployments as local processes and serves repo_host, internal_source and internal_template.`
      : null;
  }

  async build(job: RevisionJob): Promise<BuildResult> {
    const built = await this.#builder.build(job, this.#layout(job.deployment.id));
    return { commitSha: built.commitSha };
  }

  async deploy(job: RevisionJob): Promise<void> {
    const layout = this.#layout(job.deployment.id);
    const built = this.#builder.locate(job, layout);
    if (!built) throw new RuntimeFailure("The revision's build is missing; redeploy the revision.", "deploy");
    const id = job.deployment.id;
    const agent = await this.#start(job, layout, built);
    const previous = this.#agents.get(id);
    job.log("deploy", "INFO", "Agent server is healthy.");
    if (previous?.shared && agent.shared) {
      // Both revisions share the data directory and reach each other's runs through Redis: new
      // requests go to the new revision now; the old one finishes its runs beside it (its open
      // streams and joins go on; joins, streams and cancels of its runs work through either).
      this.#agents.set(id, agent);
      this.#saveState(layout, agent);
      this.#retireBeside(id, previous, job);
    } else if (previous) {
      // One process at a time executes the deployment's runs (a run's waiters live in the process
      // that executes it): new requests wait here while the old revision finishes what it
      // accepted and exits; the new one then takes the data directory over and serves.
      let switched = () => {};
      this.#switching.set(id, new Promise<void>((resolve) => (switched = resolve)));
      try {
        job.log(
          "deploy",
          "INFO",
          `Stopping the previous revision ${previous.revisionId} (it finishes its runs first).`,
        );
        const started = Date.now();
        // Requests already sent to it finish there (their runs, waits and streams live in it),
        // for up to the drain period; then it stops (SIGTERM: it claims nothing more).
        await this.#inFlight.waitFor(previous, "idle", this.options.drainGraceMs);
        await previous.retire(this.options.drainGraceMs);
        this.#inFlight.forget(previous);
        job.log("deploy", "INFO", `Previous revision stopped after ${Date.now() - started} ms.`);
      } finally {
        this.#agents.set(id, agent);
        this.#saveState(layout, agent);
        this.#switching.delete(id);
        switched();
      }
    } else {
      this.#agents.set(id, agent);
      this.#saveState(layout, agent);
    }
    job.log("deploy", "INFO", "The new revision serves the deployment.");
    this.#prune(layout, built);
  }

  async restore(job: RevisionJob): Promise<void> {
    if (this.#agents.has(job.deployment.id)) return;
    const layout = this.#layout(job.deployment.id);
    const state = readState(layout);
    // Its Redis user again, adopted or not (a restarted Redis may have forgotten it).
    await this.options.redis?.grant(job.deployment.id);
    if (state && isAgentOf(state.pid, layout.data)) {
      // A process of the other mode (the control plane came back with or without Redis) is
      // restarted: the two modes cannot share a data directory.
      const sameMode = (state.shared ?? false) === Boolean(this.options.redis);
      if (
        state.revision_id === job.revision.id &&
        sameMode &&
        (await isHealthy(`http://127.0.0.1:${state.port}`))
      ) {
        const process = AgentProcess.adopt(state.pid, state.port, state.token);
        this.#agents.set(job.deployment.id, this.#supervise(job, layout, process));
        job.log(
          "deploy",
          "INFO",
          `Control plane restarted: adopted the running agent server (pid ${state.pid}).`,
        );
        this.options.logger.info({ deploymentId: job.deployment.id, pid: state.pid }, "adopted agent server");
        await this.#stopStrays(layout, state.pid);
        return;
      }
      await AgentProcess.adopt(state.pid, state.port).stop(this.options.drainGraceMs);
    }
    await this.#stopStrays(layout, null);
    const built = this.#builder.locate(job, layout) ?? (await this.#builder.build(job, layout));
    job.log("deploy", "INFO", "Control plane restarted: starting the agent server again.");
    const agent = await this.#start(job, layout, built);
    this.#agents.set(job.deployment.id, agent);
    this.#saveState(layout, agent);
  }

  async serving(deploymentId: string): Promise<RunningAgent | undefined> {
    // No await unless a switch is under way: the lookup and the in-flight count below must happen
    // in the same turn as this check, or a switch could begin in between, find the old agent idle
    // and stop it under a request that is about to be sent to it (seen in CI as a cut response).
    for (let switching = this.#switching.get(deploymentId); switching; ) {
      await switching;
      switching = this.#switching.get(deploymentId);
    }
    const agent = this.#agents.get(deploymentId);
    if (!agent?.process.alive) return undefined;
    const request = this.#inFlight.track(agent);
    return {
      revisionId: agent.revisionId,
      upstream: agent.process.url,
      token: agent.process.token,
      responded: request.responded,
      release: request.release,
    };
  }

  async remove(deploymentId: string): Promise<void> {
    const agent = this.#agents.get(deploymentId);
    this.#agents.delete(deploymentId);
    await agent?.retire(this.options.drainGraceMs);
    for (const [old, retiring] of this.#retiring) {
      if (retiring.deploymentId !== deploymentId) continue;
      await old.retire(2_000);
      await retiring.done;
    }
    if (agent) this.#inFlight.forget(agent);
    const layout = this.#layout(deploymentId);
    const state = readState(layout);
    // A process a previous control plane left behind and nobody adopted.
    if (state && isAgentOf(state.pid, layout.data))
      await AgentProcess.adopt(state.pid, state.port).stop(2_000);
    await this.#stopStrays(layout, null);
    // The workspace's own trees go as its user; the rest (logs, state) is the control plane's.
    for (const dir of [layout.builds, layout.data]) this.options.isolation.remove(dir);
    fs.rmSync(layout.root, { recursive: true, force: true });
    // Last: nothing of the deployment runs any more that could use it.
    await this.options.redis?.revoke(deploymentId);
  }

  async close(): Promise<void> {
    const agents = [...this.#agents.values()];
    this.#agents.clear();
    await Promise.all([
      ...agents.map((agent) => agent.retire(this.options.drainGraceMs)),
      ...[...this.#retiring.values()].map((retiring) => retiring.done),
    ]);
  }

  /**
   * Stops a replaced agent in the background while the new revision serves: once every request
   * sent to it has been taken in (its response begun; up to the drain period), SIGTERM: it claims
   * nothing more, its running runs get its grace period (the rest go back to the queue for the
   * new revision), its open responses go on until then.
   */
  #retireBeside(deploymentId: string, previous: SupervisedAgent, job: RevisionJob): void {
    job.log(
      "deploy",
      "INFO",
      `The previous revision ${previous.revisionId} finishes its runs beside the new one (up to ${Math.round(this.options.drainGraceMs / 1000)} s).`,
    );
    const started = Date.now();
    const done = (async () => {
      await this.#inFlight.waitFor(previous, "answered", this.options.drainGraceMs);
      await previous.retire(this.options.drainGraceMs);
      this.#inFlight.forget(previous);
      job.log("deploy", "INFO", `Previous revision stopped after ${Date.now() - started} ms.`);
    })()
      .catch((error: unknown) => {
        this.options.logger.error({ err: error, deploymentId }, "could not stop the previous revision");
      })
      .finally(() => this.#retiring.delete(previous));
    this.#retiring.set(previous, { deploymentId, done });
  }

  /**
   * Stops agent servers of this deployment other than `keep` that a previous control plane
   * started and lost track of (it crashed while a new revision was starting), and clears their
   * pid files.
   */
  async #stopStrays(layout: DeploymentLayout, keep: number | null): Promise<void> {
    let files: string[];
    try {
      files = fs.readdirSync(layout.logs).filter((f) => f.endsWith(".pid"));
    } catch {
      return;
    }
    for (const file of files) {
      const full = path.join(layout.logs, file);
      const pid = Number(fs.readFileSync(full, "utf8"));
      if (pid === keep) continue;
      if (Number.isInteger(pid) && pid > 0 && isAgentOf(pid, layout.data)) {
        this.options.logger.warn({ pid, dataDir: layout.data }, "stopping an agent server left behind");
        await AgentProcess.adopt(pid, 0).stop(2_000);
      }
      fs.rmSync(full, { force: true });
    }
  }

  #layout(deploymentId: string): DeploymentLayout {
    return deploymentLayout(this.options.deploymentsDir, deploymentId);
  }

  /** Starts the built revision and waits for its health check; on failure nothing is left running. */
  async #start(job: RevisionJob, layout: DeploymentLayout, built: BuiltRevision): Promise<SupervisedAgent> {
    await this.options.redis?.grant(job.deployment.id);
    const plan = planRevisionAgent(
      this.options,
      job,
      layout,
      built.graphConfigPath,
      await freePort(),
      newToken(),
    );
    job.log(
      "deploy",
      "INFO",
      `Starting the agent server on port ${plan.port} ${this.options.isolation.describe(this.options.isolation.identity(job.deployment.tenant_id))}`,
    );
    job.log("deploy", "INFO", planLocalResources(job.revision.resource_spec).summary);
    const tail = followLog(plan.logFile, job.log, { fromEnd: true });
    const process = AgentProcess.start(plan);
    try {
      await process.waitHealthy(this.options.deployTimeoutMs, job.signal);
    } catch (error) {
      await process.stop(2_000);
      tail.stop();
      if (job.signal.aborted) throw error;
      throw new RuntimeFailure(`The agent server did not start: ${(error as Error).message}.`, "deploy");
    }
    return new SupervisedAgent(
      process,
      job.revision.id,
      plan,
      job.log,
      this.options.logger,
      {
        onRestarted: () => this.#saveStateOf(job.deployment.id, layout),
      },
      tail,
    );
  }

  #supervise(job: RevisionJob, layout: DeploymentLayout, process: AgentProcess): SupervisedAgent {
    const plan = planRevisionAgent(
      this.options,
      job,
      layout,
      this.#builder.locate(job, layout)?.graphConfigPath ?? "",
      process.port,
      process.token,
    );
    return new SupervisedAgent(process, job.revision.id, plan, job.log, this.options.logger, {
      onRestarted: () => this.#saveStateOf(job.deployment.id, layout),
    });
  }

  #saveStateOf(deploymentId: string, layout: DeploymentLayout): void {
    const agent = this.#agents.get(deploymentId);
    if (agent) this.#saveState(layout, agent);
  }

  #saveState(layout: DeploymentLayout, agent: SupervisedAgent): void {
    writeState(layout, {
      revision_id: agent.revisionId,
      pid: agent.process.pid,
      port: agent.process.port,
      token: agent.process.token,
      shared: agent.shared,
    });
  }

  /** Removes builds beyond the newest `keepBuilds` (never the running one). */
  #prune(layout: DeploymentLayout, running: BuiltRevision): void {
    let entries: Array<{ dir: string; mtime: number }>;
    try {
      entries = fs
        .readdirSync(layout.builds, { withFileTypes: true })
        .filter((e) => e.isDirectory() && !e.name.startsWith("."))
        .map((e) => {
          const dir = path.join(layout.builds, e.name);
          return { dir, mtime: fs.statSync(dir).mtimeMs };
        })
        .filter((e) => e.dir !== running.dir)
        .sort((a, b) => b.mtime - a.mtime);
    } catch {
      return;
    }
    for (const old of entries.slice(this.options.keepBuilds)) this.options.isolation.remove(old.dir);
  }
}
