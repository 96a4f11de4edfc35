// The three APIs a control plane serves, as one OpenAPI document for /docs: its own (/v2, /api/v1),
// the agent server behind /agents/{deployment_id}, and the LangSmith-compatible tracing API.

import { LANGSMITH_PREFIX, type LangSmithDeps, langsmithRoutes } from "@berth-platform/tracing";
import swagger from "@fastify/swagger";
import Fastify from "fastify";
import { jsonSchemaTransform, validatorCompiler } from "fastify-type-provider-zod";

type Operation = Record<string, unknown>;

/** An OpenAPI 3 document (only what is read or merged here). */
export interface OpenApiDocument {
  openapi?: string;
  info?: Record<string, unknown>;
  paths?: Record<string, Record<string, Operation>>;
  tags?: { name: string; description?: string }[];
  [key: string]: unknown;
}

const AGENT_PREFIX = "/agents/{deployment_id}";

/**
 * The tracing routes' own schemas as OpenAPI. They are hidden from the control plane's document
 * (they have their own auth and prefix); a private app registers them again with `hide` lifted.
 * Nothing is served: the routes' handlers never run.
 */
export async function tracingApiDocument(deps: LangSmithDeps, version: string): Promise<OpenApiDocument> {
  const app = Fastify({ logger: false });
  app.setValidatorCompiler(validatorCompiler);
  await app.register(swagger, {
    openapi: { info: { title: "Berth tracing (LangSmith-compatible)", version } },
    transform: ({ schema, ...rest }) => {
      const { hide: _hidden, ...shown } = (schema ?? {}) as Record<string, unknown>;
      return jsonSchemaTransform({ ...rest, schema: shown } as Parameters<typeof jsonSchemaTransform>[0]);
    },
  });
  await app.register(langsmithRoutes(deps), { prefix: LANGSMITH_PREFIX });
  await app.ready();
  const document = app.swagger() as OpenApiDocument;
  await app.close();
  return document;
}

/** `/threads/{thread_id}` → "Agent: threads"; `/ok` → "Agent: system". */
function agentTag(path: string): string {
  const first = path.split("/")[1] ?? "";
  return `Agent: ${["ok", "info", "metrics"].includes(first) ? "system" : first}`;
}

/**
 * `/langsmith-api/runs/batch` → "Tracing: runs"; the version and platform segments are skipped
 * (`/api/v2/runs/query` and `/v1/platform/datasets/{id}/examples` are runs and datasets).
 */
function tracingTag(path: string): string {
  const segments = path.slice(LANGSMITH_PREFIX.length).split("/").filter(Boolean);
  const first = segments.find((s) => !["api", "v1", "v2", "platform"].includes(s)) ?? "";
  return `Tracing: ${first || "info"}`;
}

const DEPLOYMENT_PARAM = {
  name: "deployment_id",
  in: "path",
  required: true,
  description: "The deployment whose agent server answers (its custom_url is this prefix).",
  schema: { type: "string", format: "uuid" },
};

/**
 * One document of the three APIs: the control plane's paths as they are, the agent server's under
 * /agents/{deployment_id} (with that path parameter), the tracing API under its prefix; each
 * operation tagged by API and resource so /docs groups them.
 */
export function mergeApiDocuments(
  control: OpenApiDocument,
  agent: OpenApiDocument | null,
  tracing: OpenApiDocument | null,
): OpenApiDocument {
  const paths: Record<string, Record<string, Operation>> = { ...(control.paths ?? {}) };
  const tags = new Map<string, string | undefined>();
  for (const item of Object.values(control.paths ?? {})) {
    for (const op of Object.values(item))
      for (const t of (op.tags as string[] | undefined) ?? []) tags.set(t, undefined);
  }
  const add = (
    document: OpenApiDocument | null,
    prefix: string,
    tagOf: (path: string) => string,
    describe: string,
    extra?: unknown,
  ) => {
    for (const [path, item] of Object.entries(document?.paths ?? {})) {
      const tag = tagOf(path);
      tags.set(tag, describe);
      const ops: Record<string, Operation> = {};
      for (const [method, op] of Object.entries(item)) {
        ops[method] = {
          ...op,
          tags: [tag],
          ...(extra ? { parameters: [extra, ...((op.parameters as unknown[] | undefined) ?? [])] } : {}),
        };
      }
      paths[`${prefix}${path}`] = ops;
    }
  };
  add(
    agent,
    AGENT_PREFIX,
    agentTag,
    "A deployment's agent server (the LangGraph Agent Server API), through the control plane: same API key.",
    DEPLOYMENT_PARAM,
  );
  add(
    tracing,
    "",
    tracingTag,
    "The LangSmith-compatible tracing API (what the langsmith SDK calls with LANGSMITH_ENDPOINT set to the control plane; the same routes answer at its root, under /api/v1 and under /langsmith-api).",
  );
  return {
    ...control,
    info: {
      ...control.info,
      description: [
        "Three APIs: the control plane (deployments, revisions, keys, workspaces, listeners),",
        `each deployment's agent server under ${AGENT_PREFIX}${agent ? "" : " (not listed: this control plane runs no agent servers)"},`,
        `and tracing under ${LANGSMITH_PREFIX}. Send an API key as X-Api-Key. The control plane's own`,
        "document alone is /openapi.json.",
      ].join(" "),
    },
    tags: [...tags].map(([name, description]) => (description ? { name, description } : { name })),
    paths,
  };
}
