import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { ForbiddenError } from "../errors.js";
import type { TracingAuth, TracingCaller } from "../ports.js";
import type { TraceIngestQueue } from "../services/trace-ingest.js";
import type { TracingService } from "../services/tracing.js";
import { datasetRoutes } from "./routes/datasets.js";
import { exampleRoutes } from "./routes/examples.js";
import { feedbackRoutes } from "./routes/feedback.js";
import { infoRoutes } from "./routes/info.js";
import { ingestRoutes, registerParsers } from "./routes/langsmith-ingest.js";
import { langsmithReadRoutes } from "./routes/langsmith-read.js";
import { priceRoutes } from "./routes/prices.js";
import { runsV2Routes } from "./routes/runs-v2.js";
import { sessionRoutes } from "./routes/sessions.js";
import { shareRoutes } from "./routes/shares.js";

/** Where the LangSmith-compatible API lives on the control plane (agents' LANGSMITH_ENDPOINT). */
export const LANGSMITH_PREFIX = "/langsmith-api";

/** What the LangSmith-compatible routes are built from. */
export interface LangSmithDeps {
  tracing: TracingService;
  queue: TraceIngestQueue;
  auth: TracingAuth;
  /** Largest ingest body, compressed or not (also the most a compressed body may inflate to). */
  ingestLimitBytes: number;
  /** The host's own version (Berth's), told apart from the LangSmith API version /info claims. */
  version: string;
}

/** Where one mount of the routes sits. */
export interface LangSmithMount {
  /**
   * Whether the SDK's generated client (`client.runs.query` …: `/api/v2/…` under the endpoint with
   * `/api/v1` or `/api` cut off) is served under this mount; false for `/api/v1`, whose v2 routes
   * are the root's.
   */
  v2: boolean;
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the LangSmith routes' auth hook. */
    langsmithCaller: TracingCaller;
  }
}

/** Requires a workspace API key (ingest keys only send traces). */
export function requireApiCaller(request: FastifyRequest): string {
  if (request.langsmithCaller.kind !== "api") {
    throw new ForbiddenError("A trace ingest key can only send traces; reading them needs an API key.");
  }
  return request.langsmithCaller.sender.tenantId;
}

/**
 * The LangSmith-compatible API as one plugin, mounted at any prefix (the control plane mounts it
 * three times: `/langsmith-api`, `/api/v1`, and the root): its own body parsers, the host's auth
 * port on every route but the public ones, /info, ingest, reads.
 */
export function langsmithRoutes(
  deps: LangSmithDeps,
  mount: LangSmithMount = { v2: true },
): FastifyPluginAsyncZod {
  return async (app) => {
    registerParsers(app, deps.ingestLimitBytes);
    app.decorateRequest("langsmithCaller", null as unknown as TracingCaller);
    app.addHook("onRequest", async (request) => {
      // /info is public, as LangSmith's is: the SDK asks before it sends anything.
      if ((request.routeOptions.config as { public?: boolean } | undefined)?.public) return;
      request.langsmithCaller = await deps.auth.callerOf(request.headers);
    });
    await app.register(infoRoutes(deps));
    await app.register(ingestRoutes(deps));
    await app.register(langsmithReadRoutes(deps.tracing));
    await app.register(sessionRoutes(deps.tracing));
    await app.register(priceRoutes(deps.tracing.storage));
    await app.register(feedbackRoutes(deps.tracing.feedback));
    await app.register(datasetRoutes(deps.tracing.datasets));
    await app.register(exampleRoutes(deps.tracing.datasets));
    await app.register(shareRoutes(deps.tracing, mount.v2));
    if (mount.v2) {
      await app.register(runsV2Routes(deps.tracing), { prefix: "/api/v2" });
    }
  };
}
