import { timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import {
  ApiError,
  migrateToLatest,
  NulGuardPlugin,
  openSqliteFile,
  SqliteFileDialect,
  serviceApp,
  sqliteDialect,
  storageFault,
} from "@berth-platform/server-kit";
import type { FastifyBaseLogger, FastifyError, FastifyInstance } from "fastify";
import {
  hasZodFastifySchemaValidationErrors,
  serializerCompiler,
  validatorCompiler,
} from "fastify-type-provider-zod";
import { Kysely } from "kysely";
import pino, { type Logger } from "pino";
import { BadRequestError, UnauthorizedError } from "./errors.js";
import { langsmithRoutes } from "./http/plugin.js";
import type { TracingAuth, TracingCaller } from "./ports.js";
import { TraceIngestQueue } from "./services/trace-ingest.js";
import { TracingService } from "./services/tracing.js";
import { sqlTracingStorage } from "./storage/sql/index.js";
import { standaloneMigrations } from "./storage/sql/migrations.js";
import type { TracingDb } from "./storage/sql/schema.js";

/** What the standalone tracing server runs with. */
export interface StandaloneTracingOptions {
  /** The SQLite file traces live in. */
  file: string;
  /** The one API key callers send (x-api-key or Bearer); every caller is the one workspace. */
  apiKey: string;
  port?: number;
  host?: string;
  logger?: Logger;
  version?: string;
}

export interface StandaloneTracing {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

/** The one workspace of a standalone server. */
const TENANT = "00000000-0000-0000-0000-000000000000";

class SingleKeyAuth implements TracingAuth {
  readonly #key: Buffer;
  constructor(key: string) {
    this.#key = Buffer.from(key);
  }
  async callerOf(headers: IncomingHttpHeaders): Promise<TracingCaller> {
    const bearer = String(headers.authorization ?? "").match(/^Bearer\s+(\S+)\s*$/i)?.[1];
    const sent = Buffer.from(String(headers["x-api-key"] ?? bearer ?? ""));
    if (sent.length !== this.#key.length || !timingSafeEqual(sent, this.#key)) throw new UnauthorizedError();
    return { sender: { tenantId: TENANT, deploymentId: null }, kind: "api" };
  }
}

/**
 * Tracing on its own (no control plane): the LangSmith-compatible API at the root, over one SQLite
 * file and one API key. The control plane mounts the same routes with its own auth and database.
 */
export async function startStandaloneTracing(options: StandaloneTracingOptions): Promise<StandaloneTracing> {
  const logger = options.logger ?? pino({ level: "info" });
  const db = new Kysely<TracingDb>({
    dialect: new SqliteFileDialect(openSqliteFile(options.file)),
    plugins: [new NulGuardPlugin((message) => new BadRequestError(message))],
  });
  await migrateToLatest(db, { getMigrations: async () => standaloneMigrations(sqliteDialect) });
  const storage = sqlTracingStorage(db, sqliteDialect);
  const queue = new TraceIngestQueue(
    storage.traces,
    { maxRuns: 50_000, maxBytes: 256 * 1024 * 1024, batchRuns: 2_000, flushDelayMs: 5 },
    { traceRunsAccepted() {}, traceRunsDropped() {}, traceRunsWritten() {} },
    logger,
  );
  const tracing = new TracingService(
    storage,
    { nameOf: async () => undefined },
    { maxAgeMs: 0, maxProjectBytes: 0, sweepIntervalMs: 0 },
    logger,
  );
  // The control plane's defaults: a minute to send a request, 1,024 connections (the LangSmith
  // routes parse bodies within their own ingest limit).
  const app = serviceApp({
    logger: logger as FastifyBaseLogger,
    bodyLimitBytes: 1024 * 1024,
    requestTimeoutMs: 60_000,
    maxConnections: 1024,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiError) {
      if (error.retryAfterSeconds !== undefined) reply.header("retry-after", String(error.retryAfterSeconds));
      return reply.code(error.status).send({ detail: error.message });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const detail = error.validation.map((issue) => ({
        loc: [error.validationContext ?? "body", ...issue.instancePath.split("/").filter(Boolean)],
        msg: issue.message,
        type: issue.keyword,
      }));
      return reply.code(422).send({ detail });
    }
    if (storageFault(error) === "full") return reply.code(507).send({ detail: "Storage is full." });
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return reply.code(status).send({ detail: error.message });
    request.log.error({ err: error }, "unhandled error");
    return reply.code(500).send({ detail: "Internal server error" });
  });
  await app.register(
    langsmithRoutes({
      tracing,
      queue,
      auth: new SingleKeyAuth(options.apiKey),
      ingestLimitBytes: 40 * 1024 * 1024,
      version: options.version ?? "0.1.0",
    }),
  );
  const url = await app.listen({ port: options.port ?? 0, host: options.host ?? "127.0.0.1" });
  return {
    app,
    url,
    async close() {
      await app.close();
      await queue.stop();
      await db.destroy();
    },
  };
}
