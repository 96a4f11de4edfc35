// The agent server's API as an OpenAPI document, built from its routes' own schemas: the control
// plane's /docs lists it under /agents/{deployment_id}. A light entry point (@berth-platform/
// agent-server/openapi): no graphs, storage or queue are loaded; the routes get stand-in services
// they never call, since nothing is served.
import swagger from "@fastify/swagger";
import Fastify from "fastify";
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import { assistantRoutes } from "./http/routes/assistants.js";
import { cronRoutes } from "./http/routes/crons.js";
import { runStreamRoutes } from "./http/routes/run-streams.js";
import { runRoutes } from "./http/routes/runs.js";
import { storeRoutes } from "./http/routes/store.js";
import { systemRoutes } from "./http/routes/system.js";
import { threadRoutes } from "./http/routes/threads.js";
import { OPERATION_SUMMARIES } from "./openapi-summaries.js";
import { AGENT_SERVER_VERSION } from "./version.js";

/** An OpenAPI 3 document (only what its readers touch). */
export interface OpenApiDocument {
  openapi?: string;
  info?: Record<string, unknown>;
  paths?: Record<string, Record<string, Record<string, unknown>>>;
  components?: Record<string, unknown>;
  tags?: { name: string; description?: string }[];
  [key: string]: unknown;
}

/** The agent server's routes (threads, runs, assistants, store, crons, system) as OpenAPI. */
export async function agentApiDocument(): Promise<OpenApiDocument> {
  const app = Fastify({ logger: false });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(swagger, {
    openapi: { info: { title: "Berth agent server", version: AGENT_SERVER_VERSION } },
    transform: jsonSchemaTransform,
  });
  const unused = {} as never;
  const info = { version: AGENT_SERVER_VERSION, langgraphVersion: "", graphFailures: {} };
  await app.register(systemRoutes(info, unused, unused));
  await app.register(assistantRoutes(unused, unused));
  await app.register(threadRoutes(unused, unused));
  await app.register(storeRoutes(unused));
  await app.register(runRoutes(unused));
  await app.register(cronRoutes(unused));
  await app.register(
    runStreamRoutes({
      runs: unused,
      broker: unused,
      signals: unused,
      heartbeatMs: 0,
      waitKeepAliveMs: 0,
      draining: () => false,
    }),
  );
  await app.ready();
  const document = app.swagger() as OpenApiDocument;
  await app.close();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      const summary = OPERATION_SUMMARIES[`${method.toUpperCase()} ${path}`];
      if (summary && !op.summary) op.summary = summary;
    }
  }
  return document;
}
