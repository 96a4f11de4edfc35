import fs from "node:fs";
import path from "node:path";
import { listenWithFallback } from "@berth/server-kit";
import type { FastifyInstance } from "fastify";
import pino, { type Logger } from "pino";
import { buildApp } from "./app.js";
import type { ControlPlaneConfig } from "./config.js";
import { loadSecretsKey, SecretBox } from "./secrets/box.js";
import { AuthService, type BootstrapResult } from "./services/auth.js";
import { DeploymentService } from "./services/deployments.js";
import { IntegrationService } from "./services/integrations.js";
import { ListenerService } from "./services/listeners.js";
import { LogService } from "./services/logs.js";
import { KeyedMutex } from "./services/mutex.js";
import { Provisioner } from "./services/provisioner.js";
import { RevisionService } from "./services/revisions.js";
import { UploadService } from "./services/uploads.js";
import { openSqliteStorage } from "./storage/sqlite/index.js";
import type { ControlPlaneStorage } from "./storage/types.js";

/** A wired control plane, not yet listening (tests drive it with `app.inject`). */
export interface ControlPlane {
  readonly app: FastifyInstance;
  readonly storage: ControlPlaneStorage;
  readonly provisioner: Provisioner;
  /** What the first-start bootstrap did (a generated admin key is only here, once). */
  readonly bootstrap: BootstrapResult;
  /** Stops HTTP, the provisioner, then closes storage. */
  close(): Promise<void>;
}

/** A control plane listening on a port. */
export interface RunningControlPlane extends ControlPlane {
  readonly url: string;
}

/** Options the embedding program decides (the CLI, tests). */
export interface StartOptions {
  logger?: Logger;
  /** Called when the default port was taken and another one is used. */
  onPortMoved?: (from: number, to: number) => void;
}

/** The composition root: storage (SQLite in the data dir), services, provisioner and HTTP from one config. */
export async function createControlPlane(
  config: ControlPlaneConfig,
  options: StartOptions = {},
): Promise<ControlPlane> {
  const logger = options.logger ?? pino({ level: config.logLevel });
  fs.mkdirSync(config.dataDir, { recursive: true });
  const box = new SecretBox(loadSecretsKey(config.secretsKey, config.dataDir));
  const storage = await openSqliteStorage(config.dataDir, box);
  try {
    const auth = new AuthService(storage.tenants);
    const bootstrap = await auth.bootstrap(config.bootstrapApiKey, new Date().toISOString());
    const provisioner = new Provisioner(storage, path.join(config.dataDir, "deployments"), logger);
    const locks = new KeyedMutex();
    const deployments = new DeploymentService(storage, locks, provisioner);
    const revisions = new RevisionService(storage, deployments, locks, provisioner);
    const uploads = new UploadService(storage, {
      objectsDir: path.join(config.dataDir, "objects"),
      limitBytes: config.uploadLimitBytes,
    });
    const app = await buildApp({
      logs: new LogService(storage),
      listeners: new ListenerService(storage),
      integrations: new IntegrationService(config.gitHosts),
      config,
      logger,
      auth,
      deployments,
      revisions,
      projects: storage.projects,
      uploads,
    });
    provisioner.start(config.provisionIntervalMs);
    let closing: Promise<void> | undefined;
    return {
      app,
      storage,
      provisioner,
      bootstrap,
      close() {
        closing ??= (async () => {
          await app.close();
          await provisioner.stop();
          await storage.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    await storage.close();
    throw error;
  }
}

/** Creates the control plane and listens; the default port moves on to the next free one when taken. */
export async function startControlPlane(
  config: ControlPlaneConfig,
  options: StartOptions = {},
): Promise<RunningControlPlane> {
  const plane = await createControlPlane(config, options);
  try {
    const url = await listenWithFallback(plane.app, { ...config, onPortMoved: options.onPortMoved });
    return { ...plane, close: () => plane.close(), url };
  } catch (error) {
    await plane.close();
    throw error;
  }
}
