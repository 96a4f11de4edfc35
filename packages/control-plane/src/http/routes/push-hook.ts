import { jsonDepthExceeds } from "@berth-platform/server-kit";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { PushWatcher } from "../../services/push-watcher.js";
import { tooDeep } from "../errors.js";

const tags = ["integrations"];
/** The real service's host path segment and the spec's neutral one. */
const HOSTS = ["github", "repo_host"];
/** Push notifications larger than this are refused (413); the periodic check still sees the push. */
const PUSH_BODY_LIMIT_BYTES = 1024 * 1024;
/** Notifications accepted in a burst, and per second after it (a global bound: the hook has no key). */
const BURST = 60;
const PER_SECOND = 10;

const url = z.string().max(2048).nullish();

/** The fields of a GitHub-style push payload the doorbell reads (the rest is ignored). */
const PushPayload = z.object({
  ref: z.string().min(1).max(1024),
  after: z.string().max(256).nullish(),
  repository: z
    .object({ clone_url: url, html_url: url, url, default_branch: z.string().max(1024).nullish() })
    .refine((r) => Boolean(r.clone_url || r.html_url || r.url), {
      message: "repository needs clone_url, html_url or url",
    }),
});

/** A token bucket: `take` is false once the burst is spent faster than it refills. */
class TokenBucket {
  #tokens: number;
  #at = Date.now();

  constructor(
    private readonly capacity: number,
    private readonly perSecond: number,
  ) {
    this.#tokens = capacity;
  }

  take(): boolean {
    const now = Date.now();
    this.#tokens = Math.min(this.capacity, this.#tokens + ((now - this.#at) / 1000) * this.perSecond);
    this.#at = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * `POST /v1/integrations/<host>/push`: a git host's push webhook, as a doorbell only. It names a
 * repository and a ref; the matching build_on_push deployments are checked by the PushWatcher,
 * which reads the branch from the repository itself, so nothing in the payload is trusted and the
 * route needs no API key (git hosts cannot send one). Bounded: body size, a global rate, and
 * per-deployment coalescing in the watcher. Answers 202 `{checked}` before any git work.
 */
export function pushHookRoutes(watcher: PushWatcher, bodyLimitBytes: number): FastifyPluginAsyncZod {
  return async (app) => {
    const bucket = new TokenBucket(BURST, PER_SECOND);
    const bodyLimit = Math.min(bodyLimitBytes, PUSH_BODY_LIMIT_BYTES);
    // GitHub's default webhook content type: the JSON is the `payload` form field.
    const parseJson = app.getDefaultJsonParser("error", "error");
    app.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit },
      (request, body, done) => {
        const payload = new URLSearchParams(body as string).get("payload");
        if (payload === null) return done(null, undefined);
        if (jsonDepthExceeds(payload)) return done(tooDeep(), undefined);
        parseJson(request, payload, done);
      },
    );
    // Before the body is read: a flood costs no parsing.
    app.addHook("onRequest", async (_request, reply) => {
      if (bucket.take()) return;
      reply
        .code(429)
        .header("retry-after", "1")
        .send({ detail: "Too many push notifications; branches are also checked periodically." });
      return reply;
    });
    for (const host of HOSTS) {
      app.post(
        `/v1/integrations/${host}/push`,
        {
          bodyLimit,
          schema: {
            tags,
            summary: "Push webhook of a git host: new revisions for build_on_push deployments of the branch",
            security: [],
            body: PushPayload,
            response: { 202: z.object({ checked: z.number().int() }) },
          },
          // A host's other events (GitHub's ping on creation) are acknowledged, not validated.
          preValidation: async (request, reply) => {
            const event = header(request, "x-github-event") ?? header(request, "x-gitea-event");
            if (event === undefined || event === "push") return;
            reply.code(202).send({ checked: 0 });
            return reply;
          },
        },
        async (request, reply) => {
          const { ref, repository } = request.body;
          const repoUrls = [repository.clone_url, repository.html_url, repository.url].filter(
            (u): u is string => typeof u === "string" && u !== "",
          );
          const checked = await watcher.ring({ repoUrls, ref, defaultBranch: repository.default_branch });
          return reply.code(202).send({ checked });
        },
      );
    }
  };
}
