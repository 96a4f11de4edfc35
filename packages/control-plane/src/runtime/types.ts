import type { Deployment, Revision } from "../domain/types.js";

/** Where a line of a revision's log goes. */
export type LogType = "build" | "deploy";

/** Writes lines to a revision's build or deploy log. */
export type RevisionLog = (type: LogType, level: "INFO" | "WARNING" | "ERROR", message: string) => void;

/** One revision to build or deploy, with its inputs in plaintext (secrets included). */
export interface RevisionJob {
  deployment: Deployment;
  revision: Revision;
  log: RevisionLog;
  /** Aborted when the revision is interrupted, superseded or the control plane stops. */
  signal: AbortSignal;
}

/** What a build produced: enough for the runtime to start the revision later, even after a restart. */
export interface BuildResult {
  /** The commit a repo_host revision was built from. */
  commitSha: string | null;
}

/** Work of a revision that failed for a reason the user can act on (message goes to the logs). */
export class RuntimeFailure extends Error {
  /** The commit a failed repo_host build had checked out (recorded on the revision all the same). */
  commitSha: string | null;

  constructor(
    message: string,
    readonly phase: "create" | "build" | "deploy",
  ) {
    super(message);
    this.commitSha = null;
    this.name = "RuntimeFailure";
  }
}

/** A deployment's running revision, as the runtime reports it. */
export interface RunningAgent {
  revisionId: string;
  /** Base URL of the agent server (the proxy's upstream). */
  upstream: string;
  /** The credential the agent server requires (sent by the proxy only), or null when it needs none. */
  token: string | null;
  /**
   * Called once the request this agent was looked up for has been answered: a revision switch
   * waits for the old agent's requests in flight before stopping it (they finish where they began).
   */
  release(): void;
  /**
   * Called once the agent server's response to that request has begun (headers received): a
   * switch without a hold stops the old agent only after every request sent to it was taken in,
   * so none reaches it after it began refusing new ones.
   */
  responded(): void;
}

/**
 * The runtime port: turns revisions into running agent servers. Adapters: local processes (the
 * embedded default); Kubernetes later. Statuses are the caller's business; the runtime only does
 * the work and throws RuntimeFailure with a message for the logs.
 */
export interface DeploymentRuntime {
  /** Why this runtime cannot serve a source (null when it can). */
  unsupportedReason(source: Revision["source"]): string | null;
  /** Fetches and builds the revision's source. */
  build(job: RevisionJob): Promise<BuildResult>;
  /**
   * Starts the built revision beside the running one, waits until it answers its health check,
   * then makes it the deployment's running revision; the previous one drains and stops.
   */
  deploy(job: RevisionJob): Promise<void>;
  /** Brings a deployment's active revision back after a control plane restart (adopt or restart). */
  restore(job: RevisionJob): Promise<void>;
  /**
   * The revision serving a deployment, if any, counted as in use until `release()`. During a switch
   * between revisions it resolves once the new one has taken over (requests wait briefly instead
   * of reaching a process that stops); with cross-process signals (Redis) there is no such wait.
   */
  serving(deploymentId: string): Promise<RunningAgent | undefined>;
  /** Stops the deployment's processes and removes its builds and data. */
  remove(deploymentId: string): Promise<void>;
  /** Stops every process this runtime started (the control plane is shutting down). */
  close(): Promise<void>;
}
