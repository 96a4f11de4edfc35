import { serviceApp } from "@berth-platform/server-kit";
import {
  LANGSMITH_PREFIX,
  type LangSmithDeps,
  langsmithRoutes,
  type TracingService,
} from "@berth-platform/tracing";
import swagger from "@fastify/swagger";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import { jsonSchemaTransform, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import type { Logger } from "pino";
import type { ControlPlaneConfig } from "./config.js";
import { mergeApiDocuments, type OpenApiDocument, tracingApiDocument } from "./http/api-documents.js";
import { apiHostRewrite } from "./http/api-host.js";
import { requirePrincipal, requireTenant } from "./http/auth.js";
import { registerErrorHandling, registerJsonParsing } from "./http/errors.js";
import { apiKeyRoutes, workspaceRoutes } from "./http/routes/access.js";
import { agentProxyRoutes } from "./http/routes/agent-proxy.js";
import {
  type DashboardAssets,
  dashboardRoutes,
  readDashboardIndex,
  sendIndex,
} from "./http/routes/dashboard.js";
import { deploymentRoutes } from "./http/routes/deployments.js";
import { docsRoutes } from "./http/routes/docs.js";
import { integrationRoutes } from "./http/routes/integrations.js";
import { listenerAgentRoutes } from "./http/routes/listener-agent.js";
import { listenerRoutes } from "./http/routes/listeners.js";
import { logRoutes } from "./http/routes/logs.js";
import { projectRoutes } from "./http/routes/projects.js";
import { pushHookRoutes } from "./http/routes/push-hook.js";
import { pushTokenRoutes } from "./http/routes/push-token.js";
import { revisionRoutes } from "./http/routes/revisions.js";
import { studioLinkRoutes } from "./http/routes/studio-links.js";
import { systemRoutes } from "./http/routes/system.js";
import { templateRoutes } from "./http/routes/templates.js";
import { traceSeriesRoutes } from "./http/routes/trace-series.js";
import { uploadReceiveRoutes, uploadUrlRoutes } from "./http/routes/uploads.js";
import type { ControlPlaneMetrics } from "./metrics/control-plane-metrics.js";
import type { TemplateCatalog } from "./runtime/local/templates.js";
import type { AccessService } from "./services/access.js";
import type { AgentGateway } from "./services/agent-gateway.js";
import type { AgentUrls } from "./services/agent-urls.js";
import type { AuthService } from "./services/auth.js";
import type { DeploymentService } from "./services/deployments.js";
import type { IntegrationService } from "./services/integrations.js";
import type { ListenerAgentService } from "./services/listener-agent.js";
import type { ListenerService } from "./services/listeners.js";
import type { LogService } from "./services/logs.js";
import type { PushWatcher } from "./services/push-watcher.js";
import type { RevisionService } from "./services/revisions.js";
import type { StudioLinks } from "./services/studio-links.js";
import type { UploadService } from "./services/uploads.js";
import { CONTROL_PLANE_VERSION } from "./version.js";

/** The services the HTTP app is built from. */
export interface AppDeps {
  config: ControlPlaneConfig;
  logger: Logger;
  auth: AuthService;
  access: AccessService;
  deployments: DeploymentService;
  revisions: RevisionService;
  tracing: TracingService;
  langsmith: LangSmithDeps;
  uploads: UploadService;
  logs: LogService;
  listeners: ListenerService;
  listenerAgent: ListenerAgentService;
  integrations: IntegrationService;
  pushWatcher: PushWatcher;
  gateway: AgentGateway;
  templates: TemplateCatalog;
  metrics: ControlPlaneMetrics;
  /** Signed Studio links: LangGraph Studio's way into `/studio/<token>` (it cannot send a key). */
  studioLinks: StudioLinks;
  /** Where the control plane is reached (its base follows the port it listens on). */
  agentUrls: AgentUrls;
  /** The agent server's API as OpenAPI, for /docs (from the CLI, which has the agent server). */
  agentApiDocument?: (() => Promise<OpenApiDocument>) | undefined;
  /** The built web dashboard served at `/`; absent: no dashboard routes. */
  dashboard?: DashboardAssets | undefined;
}

/** Builds the control plane's Fastify app (no listening: the composition root does that). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = serviceApp({
    logger: deps.logger as FastifyBaseLogger,
    bodyLimitBytes: deps.config.bodyLimitBytes,
    requestTimeoutMs: deps.config.requestTimeoutMs,
    maxConnections: deps.config.maxConnections,
    rewriteUrl: apiHostRewrite,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  // Responses are built field by field by http/wire.ts; validating them again on every reply cost
  // ~7 % of a GET (profile). The response schemas stay for OpenAPI.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  registerJsonParsing(app);
  app.addHook("onResponse", async (request, reply) => {
    // The route pattern (not the URL) keeps label values few; unmatched URLs count as one.
    deps.metrics.request(
      request.method,
      request.routeOptions.url ?? "unmatched",
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });
  const dashboardIndex = deps.dashboard ? readDashboardIndex(deps.dashboard) : undefined;
  registerErrorHandling(app, {
    notFoundPage: dashboardIndex && ((request, reply) => sendIndex(dashboardIndex, request, reply)),
  });
  await app.register(swagger, {
    openapi: {
      info: { title: "Berth control plane", version: CONTROL_PLANE_VERSION },
      components: {
        securitySchemes: {
          ApiKey: { type: "apiKey", in: "header", name: "X-Api-Key" },
          TenantId: { type: "apiKey", in: "header", name: "X-Tenant-Id" },
          Bearer: { type: "http", scheme: "bearer" },
        },
      },
      security: [{ ApiKey: [] }, { ApiKey: [], TenantId: [] }, { Bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });
  // The interactive reference: the control plane's, the agent servers' and the tracing API in one
  // document, built on first request (swagger-ui's assets from the package, no CDN).
  const docsVersion = CONTROL_PLANE_VERSION;
  docsRoutes(app, {
    version: docsVersion,
    warmup: deps.config.docsWarmup,
    document: async () => {
      const [agent, tracing] = await Promise.all([
        deps.agentApiDocument ? deps.agentApiDocument() : Promise.resolve(null),
        tracingApiDocument(deps.langsmith, docsVersion),
      ]);
      return mergeApiDocuments(app.swagger() as OpenApiDocument, agent, tracing);
    },
  });
  await app.register(systemRoutes);
  if (deps.dashboard) await dashboardRoutes(app, deps.dashboard, dashboardIndex);
  app.get("/metrics", { schema: { hide: true } }, async (_request, reply) =>
    reply.type(deps.metrics.registry.contentType).send(await deps.metrics.render()),
  );
  await uploadReceiveRoutes(app, deps.uploads);
  // A doorbell, not a credentialed call: git hosts cannot send an API key (see push-hook.ts).
  await app.register(pushHookRoutes(deps.pushWatcher, deps.config.bodyLimitBytes));
  await agentProxyRoutes(app, deps.gateway, deps.auth, deps.studioLinks);
  // Listeners authenticate with their own key, not a workspace API key (see listener-agent.ts).
  await app.register(listenerAgentRoutes(deps.listenerAgent));
  // The LangSmith-compatible API (the tracing package, with its own parsers and auth hook) where
  // users point the SDK: /langsmith-api (deployed agents' endpoint), /api/v1 (as self-hosted
  // LangSmith serves it) and the root. Its paths (/info, /runs, /sessions, /feedback, /datasets,
  // /examples, /public, /api/v2) are none of the control plane's own (docs/decisions.md).
  await app.register(langsmithRoutes(deps.langsmith), { prefix: LANGSMITH_PREFIX });
  await app.register(langsmithRoutes(deps.langsmith, { v2: false }), { prefix: "/api/v1" });
  await app.register(langsmithRoutes(deps.langsmith));
  await app.register(async (api) => {
    requirePrincipal(api, deps.auth);
    await api.register(workspaceRoutes(deps.access));
  });
  await app.register(async (api) => {
    requireTenant(api, deps.auth);
    await api.register(apiKeyRoutes(deps.access));
    await api.register(uploadUrlRoutes(deps.uploads, deps.config.publicUrl));
    await api.register(logRoutes(deps.logs));
    await api.register(listenerRoutes(deps.listeners, deps.config.listenerTimeoutMs));
    await api.register(integrationRoutes(deps.integrations));
    await api.register(deploymentRoutes(deps.deployments));
    await api.register(pushTokenRoutes(deps.deployments, deps.config.registry));
    await api.register(revisionRoutes(deps.revisions));
    await api.register(projectRoutes(deps.tracing));
    await api.register(traceSeriesRoutes(deps.tracing));
    await api.register(templateRoutes(deps.templates));
    await api.register(
      studioLinkRoutes(deps.deployments, deps.studioLinks, {
        publicBase: () => deps.agentUrls.base,
        studioUrl: deps.config.studioUrl,
      }),
    );
  });
  return app;
}
