import type { ControlPlanePort, DeployLogLine, DesiredState } from "./types.js";

/** Largest batch of log lines the control plane takes at once (lines, and bytes under its body limit). */
const LOG_BATCH = 500;
const LOG_BATCH_BYTES = 256 * 1024;
/** Longest line the control plane takes. */
const LOG_LINE_CHARS = 16_384;

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
    const send = (batch: DeployLogLine[]) =>
      this.#call("POST", `${this.#revision(deploymentId, revisionId)}/logs`, { lines: batch }, [404]);
    let batch: DeployLogLine[] = [];
    let bytes = 0;
    for (const line of lines) {
      const cut = { ...line, message: line.message.slice(0, LOG_LINE_CHARS) };
      const size = Buffer.byteLength(cut.message) + 64;
      if (batch.length > 0 && (batch.length >= LOG_BATCH || bytes + size > LOG_BATCH_BYTES)) {
        await send(batch);
        batch = [];
        bytes = 0;
      }
      batch.push(cut);
      bytes += size;
    }
    if (batch.length > 0) await send(batch);
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
