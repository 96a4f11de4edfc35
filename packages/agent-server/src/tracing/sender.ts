import http from "node:http";
import https from "node:https";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import type { LeanTraceSettings } from "./settings.js";

/** Where finished traces go: the multipart parts of one trace, already encoded. */
export interface TraceSink {
  /** Queues one trace's parts (`--boundary` framed, see `multipartPart`); never throws, never waits. */
  send(parts: string): void;
  /** Sends what is queued (and waits for what is in flight), until `deadlineMs` from now at most. */
  drain(deadlineMs: number): Promise<void>;
}

/** The boundary of every body this process sends (no part is a JSON text holding it). */
export const BOUNDARY = "----BerthTraceBoundary7f3a9c1e5d";

/** One multipart part in the SDK's framing (`length` is the JSON text's length, as the SDK sends it). */
export function multipartPart(name: string, json: string): string {
  return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\nContent-Type: application/json; length=${json.length}\r\n\r\n${json}\r\n`;
}

/**
 * A POST carries at most this many characters (traces beyond wait for the next one): ≤ 12 MB even
 * of 3-byte characters, under LangSmith's 20 MB batch limit (Berth's ingest takes 40 MiB).
 */
const MAX_BODY_CHARS = 4 * 1024 * 1024;
const RETRIES = 3;
const RETRY_BASE_MS = 500;
const REQUEST_TIMEOUT_MS = 30_000;
/**
 * How long a finished trace may wait for others to share its request. A POST costs the agent
 * ~0.4 ms of CPU (request, socket write, response); one per trace was a tenth of what tracing an
 * agent run costs. The SDK waits 250 ms; visibility within 1 s leaves room for either.
 */
const BATCH_DELAY_MS = 100;
/** A batch this large goes at once. */
const EARLY_CHARS = 1024 * 1024;

/**
 * Posts traces to `<endpoint>/runs/multipart`, the SDK's batch ingest endpoint: one request at a
 * time, carrying every trace that ended while the previous one was out (so concurrent runs share a
 * request, and an idle server sends a trace as soon as it ends). Network errors, 429 and 5xx are
 * retried with backoff; a trace refused otherwise is dropped with a warning, as the SDK does.
 */
export class MultipartIngestSender implements TraceSink {
  readonly #url: URL;
  readonly #headers: Record<string, string>;
  readonly #agent: http.Agent;
  readonly #request: typeof http.request;
  readonly #logger: Logger;
  #queue: string[] = [];
  #queuedChars = 0;
  #inFlight: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(settings: LeanTraceSettings, logger: Logger) {
    this.#url = new URL(`${settings.endpoint}/runs/multipart`);
    const secure = this.#url.protocol === "https:";
    this.#agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
    this.#request = secure ? https.request : http.request;
    this.#headers = {
      "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
      ...(settings.apiKey ? { "x-api-key": settings.apiKey } : {}),
      ...(settings.workspaceId ? { "x-tenant-id": settings.workspaceId } : {}),
    };
    this.#logger = logger;
  }

  send(parts: string): void {
    this.#queue.push(parts);
    this.#queuedChars += parts.length;
    if (this.#queuedChars >= EARLY_CHARS && !this.#inFlight) this.#post();
    else this.#schedule();
  }

  async drain(deadlineMs: number): Promise<void> {
    const deadline = sleep(deadlineMs, "timeout" as const, { ref: false });
    const done = (async () => {
      while (this.#inFlight || this.#queue.length > 0) {
        if (!this.#inFlight) this.#post();
        await this.#inFlight;
      }
    })();
    const outcome = await Promise.race([done.then(() => "done" as const), deadline]);
    this.#closed = true;
    this.#agent.destroy();
    if (outcome === "timeout" && this.#queue.length > 0)
      this.#logger.warn({ traces: this.#queue.length }, "traces not sent before shutdown");
  }

  /** Posts once the batch delay is over (a POST still out when it is: once that one is answered). */
  #schedule(): void {
    if (this.#timer || this.#inFlight) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (!this.#inFlight) this.#post();
    }, BATCH_DELAY_MS);
    this.#timer.unref();
  }

  #post(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#queue.length === 0) return;
    const batch: string[] = [];
    let chars = 0;
    while (this.#queue.length > 0) {
      const next = this.#queue[0] as string;
      if (batch.length > 0 && chars + next.length > MAX_BODY_CHARS) break;
      batch.push(next);
      chars += next.length;
      this.#queue.shift();
    }
    this.#queuedChars -= chars;
    batch.push(`--${BOUNDARY}--\r\n`);
    const body = Buffer.from(batch.join(""), "utf8");
    const traces = batch.length - 1;
    this.#inFlight = this.#deliver(body, traces).finally(() => {
      this.#inFlight = null;
      if (this.#queue.length > 0 && !this.#closed) this.#schedule();
    });
  }

  async #deliver(body: Buffer, traces: number): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      let status: number;
      try {
        status = await this.#postOnce(body);
      } catch (error) {
        if (attempt < RETRIES && !this.#closed) {
          await sleep(RETRY_BASE_MS * 2 ** attempt);
          continue;
        }
        this.#logger.warn({ err: error, traces }, "traces could not be sent; dropped");
        return;
      }
      if (status < 300) return;
      if ((status === 429 || status >= 500) && attempt < RETRIES && !this.#closed) {
        await sleep(RETRY_BASE_MS * 2 ** attempt);
        continue;
      }
      this.#logger.warn(
        { status, traces, url: this.#url.origin },
        "the trace ingest refused traces; dropped",
      );
      return;
    }
  }

  #postOnce(body: Buffer): Promise<number> {
    return new Promise((resolve, reject) => {
      const request = this.#request(
        this.#url,
        {
          method: "POST",
          agent: this.#agent,
          headers: { ...this.#headers, "content-length": String(body.length) },
          timeout: REQUEST_TIMEOUT_MS,
        },
        (response) => {
          response.resume();
          response.on("end", () => resolve(response.statusCode ?? 0));
          response.on("error", reject);
        },
      );
      request.on("timeout", () => request.destroy(new Error("trace upload timed out")));
      request.on("error", reject);
      request.end(body);
    });
  }
}
