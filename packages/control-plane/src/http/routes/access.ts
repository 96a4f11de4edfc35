import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  ApiKeyCreatedOut,
  ApiKeyCreateRequest,
  ApiKeyOut,
  WorkspaceCreateRequest,
  WorkspaceOut,
} from "../../schemas/access.js";
import { NoContent } from "../../schemas/responses.js";
import type { AccessService } from "../../services/access.js";
import type { ApiKeyRecord, Tenant } from "../../storage/types.js";

const tags = ["access"];

function workspaceWire(t: Tenant) {
  return { id: t.id, display_name: t.name, created_at: t.created_at };
}

function keyWire(k: ApiKeyRecord) {
  return {
    id: k.id,
    short_key: k.short_key,
    description: k.description,
    role: k.role,
    workspace_ids: k.tenant_ids,
    created_at: k.created_at,
    expires_at: k.expires_at,
    last_used_at: k.last_used_at,
  };
}

/**
 * Workspaces across the caller's key (no X-Tenant-Id needed): paths and field names of the
 * LangSmith API (`/api/v1/workspaces`, `display_name`).
 */
export function workspaceRoutes(access: AccessService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/api/v1/workspaces",
      {
        schema: { tags, summary: "Workspaces the API key reaches", response: { 200: z.array(WorkspaceOut) } },
      },
      async (request) => (await access.workspaces(request.principal)).map(workspaceWire),
    );
    app.post(
      "/api/v1/workspaces",
      {
        schema: {
          tags,
          summary: "Create a workspace (admin keys; the key reaches it)",
          body: WorkspaceCreateRequest,
          response: { 201: WorkspaceOut },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send(workspaceWire(await access.createWorkspace(request.principal, request.body.display_name))),
    );
  };
}

/** API keys of the workspace the request acts in (admin keys only): LangSmith's `/api/v1/api-key` paths. */
export function apiKeyRoutes(access: AccessService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/api/v1/api-key",
      { schema: { tags, summary: "API keys of the workspace", response: { 200: z.array(ApiKeyOut) } } },
      async (request) => (await access.keys(request.principal, request.tenantId)).map(keyWire),
    );
    app.post(
      "/api/v1/api-key",
      {
        schema: {
          tags,
          summary: "Create an API key (shown once)",
          body: ApiKeyCreateRequest,
          response: { 200: ApiKeyCreatedOut },
        },
      },
      async (request) => {
        const created = await access.createKey(request.principal, request.tenantId, request.body);
        return { ...keyWire(created.record), key: created.key };
      },
    );
    app.delete(
      "/api/v1/api-key/:api_key_id",
      {
        schema: {
          tags,
          summary: "Revoke an API key",
          params: z.object({ api_key_id: z.string().max(64) }),
          response: { 204: NoContent },
        },
      },
      async (request, reply) => {
        await access.revokeKey(request.principal, request.tenantId, request.params.api_key_id);
        return reply.code(204).send(null);
      },
    );
  };
}
