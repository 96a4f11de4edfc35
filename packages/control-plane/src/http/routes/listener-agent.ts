import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Listener } from "../../domain/types.js";
import { ListenerLogsRequest, RevisionReportRequest } from "../../schemas/listeners.js";
import { ErrorOut, NoContent } from "../../schemas/responses.js";
import type { ListenerAgentService } from "../../services/listener-agent.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The listener behind a listener-facing request, set by its auth hook. */
    listener: Listener;
  }
}

const tags = ["listener agent"];
const ListenerParams = z.object({ listener_id: z.uuid() });
const RevisionParams = ListenerParams.extend({ deployment_id: z.uuid(), revision_id: z.uuid() });
/** What the listener polls (documented to its top level; a revision carries its whole inputs). */
const DesiredStateOut = z.object({
  listener_id: z.string(),
  poll_interval_seconds: z.number(),
  deployments: z.array(
    z.object({
      deployment_id: z.string(),
      name: z.string(),
      namespace: z.string(),
      custom_url: z.string().nullable(),
      revision: z.unknown().describe("the revision to run, with its inputs; null when there is none yet"),
    }),
  ),
});

/** The listener's key: `Authorization: Bearer <key>` or `X-Listener-Key`. */
function listenerKey(request: FastifyRequest): string | undefined {
  const direct = request.headers["x-listener-key"];
  if (typeof direct === "string") return direct;
  const auth = request.headers.authorization;
  return auth?.startsWith("Bearer ") ? auth.slice("Bearer ".length).trim() : undefined;
}

/**
 * The listener-facing API (issue 15): what a `berth listener` polls and reports to. Authenticated
 * by the listener's own key, not a workspace API key; the listener id in the path must match it.
 */
export function listenerAgentRoutes(agent: ListenerAgentService): FastifyPluginAsyncZod {
  return async (app) => {
    app.decorateRequest("listener", null as unknown as Listener);
    app.addHook("onRequest", async (request) => {
      const params = request.params as { listener_id: string };
      request.listener = await agent.authenticate(params.listener_id, listenerKey(request));
    });
    app.get(
      "/v2/listeners/:listener_id/desired-state",
      {
        schema: {
          tags,
          summary: "What the listener's cluster should run (polled by the listener)",
          params: ListenerParams,
          response: { 200: DesiredStateOut, 401: ErrorOut, 404: ErrorOut },
        },
      },
      async (request) => agent.desiredState(request.listener),
    );
    app.post(
      "/v2/listeners/:listener_id/deployments/:deployment_id/revisions/:revision_id/status",
      {
        schema: {
          tags,
          summary: "The listener reports a revision's rollout (DEPLOYING, DEPLOYED, DEPLOY_FAILED)",
          params: RevisionParams,
          body: RevisionReportRequest,
          response: { 200: z.object({ status: z.string() }), 401: ErrorOut, 404: ErrorOut, 409: ErrorOut },
        },
      },
      async (request) =>
        agent.report(
          request.listener,
          request.params.deployment_id,
          request.params.revision_id,
          request.body,
        ),
    );
    app.post(
      "/v2/listeners/:listener_id/deployments/:deployment_id/revisions/:revision_id/logs",
      {
        schema: {
          tags,
          summary: "The listener appends lines to a revision's deploy log",
          params: RevisionParams,
          body: ListenerLogsRequest,
          response: { 204: NoContent, 401: ErrorOut, 404: ErrorOut },
        },
      },
      async (request, reply) => {
        await agent.appendLogs(
          request.listener,
          request.params.deployment_id,
          request.params.revision_id,
          request.body.lines,
        );
        return reply.code(204).send(null);
      },
    );
  };
}
