import { type LookupAddress, lookup } from "node:dns";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import type { Logger } from "pino";
import type { LoopbackFetch } from "../http/loopback.js";
import { type AddressPolicy, isOwnAppPath } from "./address-policy.js";

/** How webhooks are delivered. */
export interface WebhookOptions {
  timeoutMs: number;
  maxAttempts: number;
  /** First retry delay; doubled after each failed attempt. */
  retryBaseMs: number;
}

/**
 * POSTs JSON to webhook URLs: bounded time per attempt, retries with exponential backoff on
 * network errors and 5xx/429, no redirects followed, and every resolved address checked by the
 * policy at connect time (so DNS cannot point a public name at a private address in between).
 */
export class WebhookSender {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly policy: AddressPolicy,
    private readonly options: WebhookOptions,
    private readonly logger: Logger,
    /** Delivers a webhook that names a path ("/custom/hook") to this server's own app. */
    private readonly loopback: LoopbackFetch,
  ) {}

  /** Delivers in the background; `drain` waits for what is still going. */
  send(url: string, payload: unknown, context: Record<string, unknown>): void {
    const delivery = this.deliver(url, JSON.stringify(payload), context).finally(() =>
      this.inFlight.delete(delivery),
    );
    this.inFlight.add(delivery);
  }

  /** Waits for deliveries in progress (at most `timeoutMs`). */
  async drain(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
  }

  private async deliver(url: string, body: string, context: Record<string, unknown>): Promise<void> {
    const refusal = this.policy.refuseUrl(url);
    if (refusal) {
      this.logger.warn({ ...context, webhook: redact(url) }, `webhook not sent: ${refusal}`);
      return;
    }
    for (let attempt = 1; attempt <= this.options.maxAttempts; attempt += 1) {
      try {
        const status = isOwnAppPath(url) ? await this.postToSelf(url, body) : await this.post(url, body);
        if (status < 500 && status !== 429) {
          if (status >= 400) this.logger.warn({ ...context, status }, "webhook refused by its receiver");
          return;
        }
        this.logger.warn({ ...context, status, attempt }, "webhook failed");
      } catch (error) {
        this.logger.warn({ ...context, attempt, err: (error as Error).message }, "webhook failed");
      }
      if (attempt < this.options.maxAttempts) {
        await new Promise((resolve) => setTimeout(resolve, this.options.retryBaseMs * 2 ** (attempt - 1)));
      }
    }
  }

  /** A path of the server's own app: its own routes (the project's `http.app` ones included) answer. */
  private async postToSelf(path: string, body: string): Promise<number> {
    const response = await this.loopback(path, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "berth-webhook" },
      body,
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    await response.body?.cancel();
    return response.status;
  }

  private post(url: string, body: string): Promise<number> {
    const target = new URL(url);
    // A literal address skips the lookup below: it is judged again here, at send time.
    const literal = target.hostname.replace(/^\[|\]$/g, "");
    if (isIP(literal) !== 0 && !this.policy.allows(literal)) {
      return Promise.reject(new Error("the webhook names a private or loopback address"));
    }
    const send = target.protocol === "https:" ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(
        target,
        {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
            "user-agent": "berth-webhook",
          },
          timeout: this.options.timeoutMs,
          lookup: (hostname, options, callback) => {
            lookup(hostname, { ...options, all: true }, (error, addresses) => {
              if (error) return callback(error, "", 0);
              const list = addresses as LookupAddress[];
              const allowed = list.filter((a) => this.policy.allows(a.address));
              const first = allowed[0];
              if (!first) return callback(new Error(`${hostname} resolves only to private addresses`), "", 0);
              if ((options as { all?: boolean }).all)
                return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
              callback(null, first.address, first.family);
            });
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("timeout", () => req.destroy(new Error(`no answer within ${this.options.timeoutMs} ms`)));
      req.on("error", reject);
      req.end(body);
    });
  }
}

/** A URL without credentials or query, fit for logs. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(invalid url)";
  }
}
