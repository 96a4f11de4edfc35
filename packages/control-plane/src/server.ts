import { createHmac } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { dashboardDir, pagePatterns } from "@berth-platform/dashboard";
import { listenWithFallback } from "@berth-platform/server-kit";
import { LANGSMITH_PREFIX, TraceIngestQueue, TracingService } from "@berth-platform/tracing";
import type { FastifyInstance } from "fastify";
import pino, { type Logger } from "pino";
import { buildApp } from "./app.js";
import type { ControlPlaneConfig } from "./config.js";
import type { Deployment } from "./domain/types.js";
import type { OpenApiDocument } from "./http/api-documents.js";
import { ControlPlaneMetrics } from "./metrics/control-plane-metrics.js";
import { bundledTemplates } from "./runtime/local/bundled.js";
import { baseEnvironment } from "./runtime/local/environment.js";
import { workspaceIsolation } from "./runtime/local/isolation-setup.js";
import { RedisAclAccess } from "./runtime/local/redis-access.js";
import { LocalRuntime } from "./runtime/local/runtime.js";
import type { TemplateCatalog } from "./runtime/local/templates.js";
import { DeploymentCreateRequest } from "./schemas/requests.js";
import { loadSecretsKey, SecretBox } from "./secrets/box.js";
import { AccessService } from "./services/access.js";
import { AgentGateway } from "./services/agent-gateway.js";
import { AgentUrls } from "./services/agent-urls.js";
import { AuthService, type BootstrapResult } from "./services/auth.js";
import { DeploymentService } from "./services/deployments.js";
import { IngestKeys } from "./services/ingest-keys.js";
import { IntegrationService } from "./services/integrations.js";
import { ListenerAgentService } from "./services/listener-agent.js";
import { ListenerService } from "./services/listeners.js";
import { LogService } from "./services/logs.js";
import { KeyedMutex } from "./services/mutex.js";
import { Provisioner } from "./services/provisioner.js";
import { PushWatcher } from "./services/push-watcher.js";
import { RevisionWorker } from "./services/revision-worker.js";
import { RevisionService } from "./services/revisions.js";
import { StudioLinks } from "./services/studio-links.js";
import { ControlPlaneDeployments, ControlPlaneTracingAuth } from "./services/tracing-ports.js";
import { UploadService } from "./services/uploads.js";
import { openPostgresStorage } from "./storage/postgres/index.js";
import { openSqliteStorage } from "./storage/sqlite/index.js";
import type { ControlPlaneStorage } from "./storage/types.js";
import { CONTROL_PLANE_VERSION } from "./version.js";

/** A wired control plane, not yet listening (tests drive it with `app.inject`). */
export interface ControlPlane {
  readonly app: FastifyInstance;
  readonly storage: ControlPlaneStorage;
  readonly provisioner: Provisioner;
  /** build_on_push: checks watched branches on a timer, on demand and when the push webhook rings. */
  readonly pushWatcher: PushWatcher;
  /** What the first-start bootstrap did (a generated admin key is only here, once). */
  readonly bootstrap: BootstrapResult;
  /** Where agent URLs point (set once the control plane listens, unless a public URL is configured). */
  readonly agentUrls: AgentUrls;
  /** The example deployment created on this first start (see StartOptions.exampleTemplateId), else null. */
  readonly exampleDeployment: Deployment | null;
  /** Tracing projects, traces and their retention. */
  readonly tracing: TracingService;
  /** The trace ingest queue (tests wait for it to settle). */
  readonly traceQueue: TraceIngestQueue;
  /** The per-deployment trace ingest keys. */
  readonly ingestKeys: IngestKeys;
  /** Stops HTTP, the provisioner, tracing (queued runs written), then closes storage. */
  close(): Promise<void>;
}

/** A control plane listening on a port. */
export interface RunningControlPlane extends ControlPlane {
  readonly url: string;
}

/** Options the embedding program decides (the CLI, tests). */
export interface StartOptions {
  logger?: Logger;
  /**
   * The program that runs an agent server (`[node, berth.js, "dev"]`): with it, the local runtime
   * builds and runs revisions; without it, revisions wait at AWAITING_BUILD / AWAITING_DEPLOY.
   */
  agentCommand?: readonly string[];
  /** The environment builds and agent servers inherit a safe part of (PATH, HOME, proxies…). */
  processEnv?: Readonly<Record<string, string | undefined>>;
  /** Projects bundled for internal_template deployments (default: Berth's examples). */
  templates?: TemplateCatalog;
  /**
   * On first start (empty database), also create a deployment of this bundled template in the new
   * workspace, so a newcomer has a running agent without writing a request.
   */
  exampleTemplateId?: string;
  /** Called when the default port was taken and another one is used. */
  onPortMoved?: (from: number, to: number) => void;
  /** Leave the provisioner stopped (the caller starts it, e.g. once listening). */
  deferProvisioning?: boolean;
  /** The agent server's API as OpenAPI, listed by /docs under /agents/{deployment_id}. */
  agentApiDocument?: () => Promise<OpenApiDocument>;
}

/** How long open responses may take to finish when the control plane stops. */
const CLOSE_GRACE_MS = 5_000;

/** The composition root: storage (SQLite file or PostgreSQL), services, provisioner and HTTP from one config. */
export async function createControlPlane(
  config: ControlPlaneConfig,
  options: StartOptions = {},
): Promise<ControlPlane> {
  const logger = options.logger ?? pino({ level: config.logLevel });
  fs.mkdirSync(config.dataDir, { recursive: true });
  const secretsKey = loadSecretsKey(config.secretsKey, config.dataDir);
  const box = new SecretBox(secretsKey);
  const ingestKeys = new IngestKeys(box.derive("trace-ingest-keys"));
  const storage = config.databaseUrl
    ? await openPostgresStorage(config.databaseUrl, box, {
        onError: (err) => logger.warn({ err }, "PostgreSQL: an idle connection failed"),
      })
    : await openSqliteStorage(config.dataDir, box);
  // Agent servers get a Redis user of their own deployment (only the local runtime starts them).
  const agentRedis =
    config.redisUrl && options.agentCommand
      ? new RedisAclAccess(config.redisUrl, box.derive("redis-acl-passwords"), logger)
      : null;
  try {
    const isolation = options.agentCommand
      ? workspaceIsolation(config, options.processEnv ?? {}, logger, true, options.agentCommand)
      : null;
    // The database and the secrets key are the control plane's alone (workspace users included).
    (isolation ?? workspaceIsolation(config, {}, logger, false)).protectDataDir();
    const auth = new AuthService(storage.tenants, (err) =>
      logger.warn({ err }, "could not record an API key's last use"),
    );
    const access = new AccessService(storage.tenants, auth);
    const bootstrap = await auth.bootstrap(config.bootstrapApiKey, new Date().toISOString());
    const deploymentsDir = path.join(config.dataDir, "deployments");
    const provisioner = new Provisioner(storage, deploymentsDir, logger);
    const locks = new KeyedMutex();
    const integrations = new IntegrationService(config.gitHosts);
    const agentUrls = new AgentUrls(config.publicUrl ?? `http://${config.host}:${config.port}`);
    const templates = options.templates ?? bundledTemplates();
    const runtime =
      options.agentCommand && isolation
        ? new LocalRuntime({
            isolation,
            deploymentsDir,
            objectsDir: path.join(config.dataDir, "objects"),
            agentCommand: options.agentCommand,
            env: baseEnvironment(options.processEnv ?? {}),
            buildTimeoutMs: config.buildTimeoutMs,
            deployTimeoutMs: config.deployTimeoutMs,
            drainGraceMs: config.drainGraceMs,
            redis: agentRedis,
            archiveLimits: config.archiveLimits,
            keepBuilds: 2,
            templates,
            repoUrlProblem: (url, integrationId) => integrations.repoUrlProblem(url, integrationId),
            repoUrlTrusted: (url, integrationId) => integrations.trustsUrl(url, integrationId),
            logger,
            agentSettings: (deployment) => ({
              agentUrl: agentUrls.of(deployment.id),
              tracing: config.tracing.enabled
                ? {
                    endpoint: `${agentUrls.internal.replace(/\/+$/, "")}${LANGSMITH_PREFIX}`,
                    apiKey: ingestKeys.keyOf(deployment.tenant_id, deployment.id),
                  }
                : null,
            }),
          })
        : null;
    let traceQueue: TraceIngestQueue | null = null;
    const metrics = new ControlPlaneMetrics({
      revisionsByStatus: () => storage.revisions.countByStatus(),
      agentProcesses: () => runtime?.agentCount() ?? 0,
      traceQueueDepth: () => traceQueue?.depth ?? 0,
    });
    traceQueue = new TraceIngestQueue(
      storage.traces,
      {
        maxRuns: config.tracing.queueRuns,
        maxBytes: config.tracing.queueBytes,
        batchRuns: 2_000,
        // Requests wait for their batch: a short gathering delay, the rest is group commit.
        flushDelayMs: 5,
      },
      metrics,
      logger,
    );
    const tracing = new TracingService(
      storage,
      new ControlPlaneDeployments(storage.deployments),
      {
        maxAgeMs: config.tracing.retentionDays * 86_400_000,
        maxProjectBytes: config.tracing.projectMaxBytes,
        sweepIntervalMs: config.tracing.sweepIntervalMs,
      },
      logger,
    );
    if (runtime) {
      provisioner.useWorker(
        new RevisionWorker(
          storage,
          runtime,
          locks,
          (id) => agentUrls.of(id),
          logger,
          () => provisioner.kick(),
          metrics,
        ),
      );
    }
    const deployments = new DeploymentService(storage, locks, provisioner, integrations);
    const revisions = new RevisionService(storage, deployments, locks, provisioner);
    const pushWatcher = new PushWatcher({ storage, revisions, integrations, logger });
    const uploads = new UploadService(storage, {
      objectsDir: path.join(config.dataDir, "objects"),
      limitBytes: config.uploadLimitBytes,
    });
    const app = await buildApp({
      logs: new LogService(storage),
      listeners: new ListenerService(storage),
      listenerAgent: new ListenerAgentService(
        storage,
        locks,
        () => provisioner.kick(),
        // Generated database passwords of listener deployments derive from the secrets key.
        createHmac("sha256", secretsKey).update("berth/listener-database-password").digest(),
      ),
      integrations,
      pushWatcher,
      gateway: new AgentGateway(storage.deployments, runtime),
      metrics,
      templates,
      config,
      logger,
      auth,
      access,
      deployments,
      revisions,
      tracing,
      langsmith: {
        tracing,
        queue: traceQueue,
        auth: new ControlPlaneTracingAuth(auth, ingestKeys),
        ingestLimitBytes: config.tracing.ingestLimitBytes,
        version: CONTROL_PLANE_VERSION,
      },
      uploads,
      dashboard: { dir: dashboardDir, pagePatterns },
      agentApiDocument: options.agentApiDocument,
      studioLinks: new StudioLinks(box.derive("studio-links")),
      agentUrls,
    });
    const example =
      options.exampleTemplateId && bootstrap.createdTenantId
        ? await deployments.create(
            bootstrap.createdTenantId,
            DeploymentCreateRequest.parse({
              name: "example-agent",
              source: "internal_template",
              source_config: { template_id: options.exampleTemplateId },
              source_revision_config: {},
              secrets: [],
            }),
          )
        : null;
    // startControlPlane starts it once it listens, so agent URLs name the port really used.
    if (!options.deferProvisioning) provisioner.start(config.provisionIntervalMs);
    pushWatcher.start(config.pushPollMs);
    tracing.start();
    const queue = traceQueue;
    let closing: Promise<void> | undefined;
    return {
      app,
      storage,
      provisioner,
      pushWatcher,
      bootstrap,
      agentUrls,
      exampleDeployment: example,
      traceQueue: queue,
      ingestKeys,
      tracing,
      close() {
        closing ??= (async () => {
          // Open responses (a proxied agent stream can last as long as a run) get a few seconds,
          // then are cut: a shutdown must not wait for a client (issue 11).
          const cut = setTimeout(() => app.server.closeAllConnections(), CLOSE_GRACE_MS);
          await app.close();
          clearTimeout(cut);
          await pushWatcher.stop();
          await provisioner.stop();
          await agentRedis?.close();
          await tracing.stop();
          await queue.stop();
          await storage.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    await agentRedis?.close();
    await storage.close();
    throw error;
  }
}

/** Creates the control plane and listens; the default port moves on to the next free one when taken. */
export async function startControlPlane(
  config: ControlPlaneConfig,
  options: StartOptions = {},
): Promise<RunningControlPlane> {
  const plane = await createControlPlane(config, { ...options, deferProvisioning: true });
  try {
    const url = await listenWithFallback(plane.app, { ...config, onPortMoved: options.onPortMoved });
    if (!config.publicUrl) plane.agentUrls.base = url;
    plane.agentUrls.internal = url;
    plane.provisioner.start(config.provisionIntervalMs);
    return { ...plane, close: () => plane.close(), url };
  } catch (error) {
    await plane.close();
    throw error;
  }
}
