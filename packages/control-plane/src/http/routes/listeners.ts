import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Listener } from "../../domain/types.js";
import {
  canonicalListener,
  ListenerCreateRequest,
  ListenerOut,
  ListenerPatchRequest,
  ListenerWithKeyOut,
  listenerVocabularyOf,
  realListener,
} from "../../schemas/listeners.js";
import { COMMON_ERRORS, NoContent, pageOf } from "../../schemas/responses.js";
import type { ListenerService } from "../../services/listeners.js";
import { decorateVocabulary } from "./aliases-hook.js";

const tags = ["listeners"];
const Params = z.object({ listener_id: z.uuid() });
const Page = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0),
});

/**
 * A listener on the wire, in the names its create used: CONNECTED while its last poll is younger
 * than `timeoutMs`.
 */
export function listenerToWire(l: Listener, timeoutMs: number) {
  const { tenant_id: _tenant, vocabulary, ...rest } = l;
  const seen = l.last_seen_at ? Date.parse(l.last_seen_at) : Number.NaN;
  const connected = Date.now() - seen <= timeoutMs;
  const wire = { ...rest, status: connected ? ("CONNECTED" as const) : ("DISCONNECTED" as const) };
  return vocabulary === "real" ? realListener(wire) : wire;
}

/** preValidation: notes the body's vocabulary, then renames the real names to the canonical ones. */
async function canonical(request: FastifyRequest): Promise<void> {
  request.vocabulary = listenerVocabularyOf(request.body);
  request.body = canonicalListener(request.body);
}

/** `/v2/listeners` routes (a listener counts as disconnected after `timeoutMs` without a poll). */
export function listenerRoutes(listeners: ListenerService, timeoutMs: number): FastifyPluginAsyncZod {
  const toWire = (l: Listener) => listenerToWire(l, timeoutMs);
  return async (app) => {
    decorateVocabulary(app);
    app.post(
      "/v2/listeners",
      {
        schema: {
          tags,
          summary: "Register a listener (a self-hosted data plane); its key is shown once",
          body: ListenerCreateRequest,
          response: { 201: ListenerWithKeyOut, ...COMMON_ERRORS },
        },
        preValidation: canonical,
      },
      async (request, reply) => {
        const { listener, key } = await listeners.create(request.tenantId, request.body, request.vocabulary);
        return reply.code(201).send({ ...toWire(listener), listener_key: key });
      },
    );
    app.post(
      "/v2/listeners/:listener_id/key",
      {
        schema: {
          tags,
          summary: "Rotate a listener's key (the new one is shown once)",
          params: Params,
          response: { 200: ListenerWithKeyOut, ...COMMON_ERRORS },
        },
      },
      async (request) => {
        const { listener, key } = await listeners.rotateKey(request.tenantId, request.params.listener_id);
        return { ...toWire(listener), listener_key: key };
      },
    );
    app.get(
      "/v2/listeners",
      {
        schema: {
          tags,
          summary: "List listeners",
          querystring: Page,
          response: { 200: pageOf(ListenerOut), ...COMMON_ERRORS },
        },
      },
      async (request) => {
        const page = await listeners.list(request.tenantId, request.query);
        return { resources: page.resources.map(toWire), offset: page.offset };
      },
    );
    app.get(
      "/v2/listeners/:listener_id",
      {
        schema: {
          tags,
          summary: "Get a listener",
          params: Params,
          response: { 200: ListenerOut, ...COMMON_ERRORS },
        },
      },
      async (request) => toWire(await listeners.get(request.tenantId, request.params.listener_id)),
    );
    app.patch(
      "/v2/listeners/:listener_id",
      {
        schema: {
          tags,
          summary: "Update a listener",
          params: Params,
          body: ListenerPatchRequest,
          response: { 200: ListenerOut, ...COMMON_ERRORS },
        },
        preValidation: canonical,
      },
      async (request) =>
        toWire(await listeners.patch(request.tenantId, request.params.listener_id, request.body)),
    );
    app.delete(
      "/v2/listeners/:listener_id",
      {
        schema: {
          tags,
          summary: "Delete a listener",
          params: Params,
          response: { 204: NoContent, ...COMMON_ERRORS },
        },
      },
      async (request, reply) => {
        await listeners.delete(request.tenantId, request.params.listener_id);
        return reply.code(204).send(null);
      },
    );
  };
}
