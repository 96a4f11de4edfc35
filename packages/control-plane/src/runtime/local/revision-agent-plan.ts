import { randomBytes } from "node:crypto";
import path from "node:path";
import type { RevisionJob } from "../types.js";
import { type AgentProcessPlan, planAgentProcess } from "./agent-process.js";
import { agentEnvironment } from "./environment.js";
import type { DeploymentLayout } from "./layout.js";
import { planLocalResources } from "./resources.js";
import type { LocalRuntimeOptions } from "./runtime.js";

/**
 * The spawn plan of a revision's agent server: as the workspace's user, in its sandbox, seeing
 * its build (read-only) and its data directory, with the given credential.
 */
export function planRevisionAgent(
  options: LocalRuntimeOptions,
  job: RevisionJob,
  layout: DeploymentLayout,
  graphConfigPath: string,
  port: number,
  token: string,
): AgentProcessPlan {
  const { isolation } = options;
  const workspace = isolation.workspace(job.deployment.tenant_id);
  isolation.prepare(layout, workspace.identity);
  const plan = planAgentProcess({
    agentCommand: options.agentCommand,
    graphConfigPath,
    dataDir: layout.data,
    port,
    env: {
      ...agentEnvironment(
        options.env,
        job.deployment,
        job.revision,
        options.agentSettings?.(job.deployment) ?? null,
      ),
      ...isolation.environment(workspace),
    },
    logFile: path.join(layout.logs, `${job.revision.id}.log`),
    token,
    heapMb: planLocalResources(job.revision.resource_spec).heapMb,
    // Granted by the runtime's start or restore before any plan of the deployment is made.
    redis: options.redis?.current(job.deployment.id) ?? null,
    drainGraceMs: options.drainGraceMs,
  });
  const launched = isolation.launch(plan.command, plan.args, workspace, {
    writable: [layout.data],
    readable: [buildRoot(layout, graphConfigPath) ?? layout.builds],
    dieWithParent: false,
    cwd: plan.cwd,
  });
  return { ...plan, ...launched };
}

/** A fresh agent server credential. */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/** The build directory (`builds/<key>`) holding a graph configuration file. */
function buildRoot(layout: DeploymentLayout, graphConfigPath: string): string | null {
  const rel = path.relative(layout.builds, graphConfigPath);
  const [key] = rel.split(path.sep);
  return key && !rel.startsWith("..") ? path.join(layout.builds, key) : null;
}
