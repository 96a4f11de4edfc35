import fastifyCors from "@fastify/cors";
import replyFrom from "@fastify/reply-from";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { UnauthorizedError } from "../../errors.js";
import type { AgentGateway } from "../../services/agent-gateway.js";
import type { AuthService } from "../../services/auth.js";
import type { StudioLinks } from "../../services/studio-links.js";

/** The header carrying a deployment's agent server credential (only this proxy sends it). */
export const AGENT_TOKEN_HEADER = "x-berth-agent-token";

/** Control-plane credentials, never passed on to user code; a client's own agent token is dropped. */
const STRIPPED = ["x-api-key", "x-tenant-id", "host", "connection", AGENT_TOKEN_HEADER];

/** Methods a browser may use on the agent API (the official agent server's CORS default). */
const CORS_METHODS = ["GET", "HEAD", "PUT", "POST", "DELETE", "PATCH"];

/**
 * What follows `/agents/<deployment id>` in the request target, exactly as the client sent it
 * (always starting with `/`): not the router's decoded path, where `%3F` would become a query,
 * `%2F` a slash and an encoded CR/LF a character dropped. It goes to the deployment's own
 * upstream, so nothing in it can reach another agent.
 */
export function forwardedTarget(rawUrl: string, prefix = "/agents/"): string {
  const rest = rawUrl.slice(rawUrl.indexOf(prefix) + prefix.length);
  const end = rest.search(/[/?]/);
  if (end < 0) return "/";
  return rest[end] === "/" ? rest.slice(end) : `/${rest.slice(end)}`;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * `/agents/{deployment_id}/…`: a deployment's stable agent URL (its `custom_url`), proxied to the
 * agent server of its running revision. An API key of the deployment's workspace is required, as
 * on the real service; `Authorization` passes through for the agent's own custom auth unless it
 * carried the control plane key. Bodies and responses (SSE included) are streamed, not buffered.
 * Browsers (LangGraph Studio, the dashboard) get CORS from the proxy itself: preflights carry no
 * key, so they are answered here without one; every real request still needs the key.
 */
export async function agentProxyRoutes(
  app: FastifyInstance,
  gateway: AgentGateway,
  auth: AuthService,
  studioLinks: StudioLinks,
) {
  /** Who calls and which deployment: by API key (`/agents/<id>`) or by a Studio link (`/studio/<token>`). */
  type Caller = { tenantId: string; deploymentId: string; apiKey: string | undefined; prefix: string };
  const byKey = async (request: FastifyRequest<{ Params: Record<string, string> }>): Promise<Caller> => {
    const apiKey = header(request, "x-api-key");
    const tenantId = await auth.authenticate({
      apiKey,
      authorization: apiKey ? undefined : header(request, "authorization"),
      tenantId: header(request, "x-tenant-id"),
    });
    return { tenantId, deploymentId: request.params.deployment_id ?? "", apiKey, prefix: "/agents/" };
  };
  const byStudioLink = async (
    request: FastifyRequest<{ Params: Record<string, string> }>,
  ): Promise<Caller> => {
    const grant = studioLinks.verify(request.params.token ?? "");
    if (!grant) {
      throw new UnauthorizedError(
        "This Studio link is not valid or has expired: open Studio again from the deployment's page in the dashboard.",
      );
    }
    // The link is the credential: a key Studio may send as well is not the control plane's to pass on.
    return {
      tenantId: grant.tenantId,
      deploymentId: grant.deploymentId,
      apiKey: undefined,
      prefix: "/studio/",
    };
  };
  await registerProxy(app, "/agents", "deployment_id", gateway, byKey);
  await registerProxy(app, "/studio", "token", gateway, byStudioLink);
}

/** One proxy prefix: CORS for browsers, then `resolve` says who calls and which deployment. */
async function registerProxy(
  app: FastifyInstance,
  prefix: string,
  param: string,
  gateway: AgentGateway,
  resolve: (request: FastifyRequest<{ Params: Record<string, string> }>) => Promise<{
    tenantId: string;
    deploymentId: string;
    apiKey: string | undefined;
    prefix: string;
  }>,
) {
  await app.register(
    async (scope) => {
      scope.removeAllContentTypeParsers();
      // Any origin: the key travels in a header, never a cookie, so a page can only call with a key
      // its user gave it. The preflight is answered in onRequest, before the handler authenticates.
      await scope.register(fastifyCors, {
        origin: "*",
        methods: CORS_METHODS,
        strictPreflight: false,
        exposedHeaders: ["content-location", "x-pagination-total"],
      });
      // Chrome asks before a public page (Studio on smith.langchain.com) calls a private address
      // (Private Network Access): the preflight must say yes.
      scope.addHook("onSend", async (request, reply) => {
        if (
          request.method === "OPTIONS" &&
          header(request, "access-control-request-private-network") === "true"
        ) {
          reply.header("access-control-allow-private-network", "true");
        }
      });
      scope.addContentTypeParser("*", (_request, payload, done) => done(null, payload));
      await scope.register(replyFrom, {
        // Runs can take long: waits and streams hold the response open (the agent sends keep-alives).
        undici: {
          connections: 128,
          pipelining: 1,
          keepAliveTimeout: 30_000,
          headersTimeout: 0,
          bodyTimeout: 0,
        },
      });
      const handler = async (
        request: FastifyRequest<{ Params: Record<string, string> }>,
        reply: FastifyReply,
      ) => {
        const { tenantId, deploymentId, apiKey, prefix: marker } = await resolve(request);
        const upstream = await gateway.upstream(tenantId, deploymentId);
        reply.raw.once("close", () => upstream.release());
        const target = `${upstream.url}${forwardedTarget(request.raw.url ?? request.url, marker)}`;
        return reply.from(target, {
          // The proxy's CORS headers stand; the agent's own would duplicate them.
          rewriteHeaders: (headers) =>
            Object.fromEntries(
              Object.entries(headers).filter(([name]) => !name.startsWith("access-control-")),
            ),
          rewriteRequestHeaders: (_req, headers) => {
            const copy: Record<string, string | string[] | undefined> = { ...headers };
            for (const name of STRIPPED) delete copy[name];
            if (!apiKey) delete copy.authorization;
            if (upstream.token) copy[AGENT_TOKEN_HEADER] = upstream.token;
            return copy;
          },
          onResponse: (_request, replyOut, res) => {
            upstream.responded();
            return replyOut.send(res.stream);
          },
          onError: (replyOut, { error }) => {
            request.log.warn({ err: error }, "agent proxy error");
            if (!replyOut.sent) {
              replyOut.code(502).send({ detail: "The deployment's agent server did not answer." });
            }
          },
        });
      };
      // reply-from logs every forwarded request at info; only its warnings are worth a line here.
      const options = { logLevel: "warn" as const, schema: { hide: true } };
      scope.all(`/:${param}`, options, handler);
      scope.all(`/:${param}/*`, options, handler);
    },
    { prefix },
  );
}
