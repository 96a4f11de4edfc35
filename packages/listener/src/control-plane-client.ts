import type { ControlPlanePort, DeployLogLine, DesiredState } from "./types.js";

/** Largest batch of log lines the control plane takes at once. */
const LOG_BATCH = 500;

/** The listener-facing API of a Berth control plane, over HTTP with the listener's key. */
export class ControlPlaneClient implements ControlPlanePort {
  readonly #base: string;

  constructor(
    baseUrl: string,
    private readonly listenerId: string,
    private readonly key: string,
    private readonly timeoutMs = 30_000,
  ) {
    this.#base = baseUrl.replace(/\/+$/, "");
  }

  async desiredState(): Promise<DesiredState> {
    const res = await this.#call("GET", `/v2/listeners/${this.listenerId}/desired-state`);
    return (await res.json()) as DesiredState;
  }

  async report(
    deploymentId: string,
    revisionId: string,
    report: { status: "DEPLOYING" | "DEPLOYED" | "DEPLOY_FAILED"; reason?: string; url?: string },
  ): Promise<boolean> {
    const res = await this.#call(
      "POST",
      `${this.#revision(deploymentId, revisionId)}/status`,
      report,
      [409, 404],
    );
    return res.ok;
  }

  async appendLogs(deploymentId: string, revisionId: string, lines: DeployLogLine[]): Promise<void> {
    for (let i = 0; i < lines.length; i += LOG_BATCH) {
      const batch = lines.slice(i, i + LOG_BATCH).map((l) => ({ ...l, message: l.message.slice(0, 16_384) }));
      await this.#call("POST", `${this.#revision(deploymentId, revisionId)}/logs`, { lines: batch }, [404]);
    }
  }

  #revision(deploymentId: string, revisionId: string): string {
    return `/v2/listeners/${this.listenerId}/deployments/${deploymentId}/revisions/${revisionId}`;
  }

  /** One request; statuses in `accepted` come back to the caller, other failures throw. */
  async #call(method: string, path: string, body?: unknown, accepted: number[] = []): Promise<Response> {
    const res = await fetch(`${this.#base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.key}`,
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (!res.ok && !accepted.includes(res.status)) {
      const text = await res.text().catch(() => "");
      throw new Error(`control plane answered ${res.status} to ${method} ${path}: ${text.slice(0, 500)}`);
    }
    return res;
  }
}
