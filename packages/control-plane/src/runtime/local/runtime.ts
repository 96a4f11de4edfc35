import fs from "node:fs";
import path from "node:path";
import type { Logger } from "pino";
import type { Source } from "../../domain/types.js";
import {
  type BuildResult,
  type DeploymentRuntime,
  type RevisionJob,
  type RunningAgent,
  RuntimeFailure,
} from "../types.js";
import { AgentProcess, isAgentOf, isHealthy, planAgentProcess } from "./agent-process.js";
import { Builder, type BuilderOptions, type BuiltRevision } from "./builder.js";
import { agentEnvironment } from "./environment.js";
import { freePort } from "./free-port.js";
import { type DeploymentLayout, deploymentLayout } from "./layout.js";
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
}

/** What runs now, persisted so that a restarted control plane can adopt it. */
interface RuntimeState {
  revision_id: string;
  pid: number;
  port: number;
}

const CONTAINER_SOURCES: readonly Source[] = ["external_container", "internal_container"];

/**
 * The embedded runtime: each deployment is one agent server process on this machine (`berth dev`
 * on a loopback port, the deployment's SQLite data in its directory). Blue/green: a new revision's
 * process starts beside the old one, and takes the data directory over when the old one exits.
 */
export class LocalRuntime implements DeploymentRuntime {
  readonly #agents = new Map<string, SupervisedAgent>();
  /** Deployments switching revisions: resolved once the new revision serves. */
  readonly #switching = new Map<string, Promise<void>>();
  readonly #builder: Builder;

  constructor(private readonly options: LocalRuntimeOptions) {
    this.#builder = new Builder(options);
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
    if (previous) {
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
        await previous.retire(this.options.drainGraceMs);
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
    if (state && isAgentOf(state.pid, layout.data)) {
      if (state.revision_id === job.revision.id && (await isHealthy(`http://127.0.0.1:${state.port}`))) {
        const process = AgentProcess.adopt(state.pid, state.port);
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
    await this.#switching.get(deploymentId);
    const agent = this.#agents.get(deploymentId);
    if (!agent?.process.alive) return undefined;
    return { revisionId: agent.revisionId, upstream: agent.process.url };
  }

  async remove(deploymentId: string): Promise<void> {
    const agent = this.#agents.get(deploymentId);
    this.#agents.delete(deploymentId);
    await agent?.retire(this.options.drainGraceMs);
    const layout = this.#layout(deploymentId);
    const state = readState(layout);
    // A process a previous control plane left behind and nobody adopted.
    if (state && isAgentOf(state.pid, layout.data))
      await AgentProcess.adopt(state.pid, state.port).stop(2_000);
    await this.#stopStrays(layout, null);
    fs.rmSync(layout.root, { recursive: true, force: true });
  }

  async close(): Promise<void> {
    const agents = [...this.#agents.values()];
    this.#agents.clear();
    await Promise.all(agents.map((agent) => agent.retire(this.options.drainGraceMs)));
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
    fs.mkdirSync(layout.logs, { recursive: true });
    fs.mkdirSync(layout.data, { recursive: true });
    const plan = planAgentProcess({
      agentCommand: this.options.agentCommand,
      graphConfigPath: built.graphConfigPath,
      dataDir: layout.data,
      port: await freePort(),
      env: agentEnvironment(this.options.env, job.deployment, job.revision),
      logFile: path.join(layout.logs, `${job.revision.id}.log`),
    });
    job.log("deploy", "INFO", `Starting the agent server on port ${plan.port}`);
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
    const plan = planAgentProcess({
      agentCommand: this.options.agentCommand,
      graphConfigPath: this.#builder.locate(job, layout)?.graphConfigPath ?? "",
      dataDir: layout.data,
      port: process.port,
      env: agentEnvironment(this.options.env, job.deployment, job.revision),
      logFile: path.join(layout.logs, `${job.revision.id}.log`),
    });
    return new SupervisedAgent(process, job.revision.id, plan, job.log, this.options.logger, {
      onRestarted: () => this.#saveStateOf(job.deployment.id, layout),
    });
  }

  #saveStateOf(deploymentId: string, layout: DeploymentLayout): void {
    const agent = this.#agents.get(deploymentId);
    if (agent) this.#saveState(layout, agent);
  }

  #saveState(layout: DeploymentLayout, agent: SupervisedAgent): void {
    const state: RuntimeState = {
      revision_id: agent.revisionId,
      pid: agent.process.pid,
      port: agent.process.port,
    };
    const temp = `${layout.stateFile}.tmp`;
    fs.writeFileSync(temp, JSON.stringify(state));
    fs.renameSync(temp, layout.stateFile);
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
    for (const old of entries.slice(this.options.keepBuilds))
      fs.rmSync(old.dir, { recursive: true, force: true });
  }
}

function readState(layout: DeploymentLayout): RuntimeState | undefined {
  try {
    return JSON.parse(fs.readFileSync(layout.stateFile, "utf8")) as RuntimeState;
  } catch {
    return undefined;
  }
}
