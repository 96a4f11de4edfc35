import { randomUUID } from "node:crypto";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { SHIPPED_PRICES, validPattern } from "../../domain/prices.js";
import type { ModelPrice } from "../../domain/sdk-types.js";
import { NotFoundError } from "../../errors.js";
import type { TracingStorage } from "../../storage/types.js";
import { requireApiCaller } from "../plugin.js";
import { Uuid } from "../query.js";

/** A price entry as LangSmith's model price map takes it: USD per token, a regex over model names. */
const PriceBody = z.object({
  name: z.string().min(1).max(200),
  match_pattern: z.string().min(1).max(500).refine(validPattern, "not a valid regular expression"),
  prompt_cost: z.number().min(0).max(1),
  completion_cost: z.number().min(0).max(1),
  provider: z.string().max(100).nullish(),
});

/**
 * `/model-price-map`: the workspace's model prices over the ones Berth ships (LangSmith's price
 * map). The list shows both, the workspace's first (the order they are matched in); only the
 * workspace's can be changed or removed.
 */
export function priceRoutes(storage: TracingStorage): FastifyPluginAsyncZod {
  return async (app) => {
    app.get("/model-price-map", { schema: { hide: true } }, async (request) => [
      ...(await storage.prices.list(requireApiCaller(request))),
      ...SHIPPED_PRICES,
    ]);

    app.post("/model-price-map", { schema: { hide: true, body: PriceBody } }, async (request) => {
      const price: ModelPrice = {
        id: randomUUID(),
        tenant_id: requireApiCaller(request),
        ...request.body,
        provider: request.body.provider ?? null,
        created_at: new Date().toISOString(),
      };
      await storage.prices.put(price);
      return price;
    });

    app.put(
      "/model-price-map/:id",
      { schema: { hide: true, params: z.object({ id: Uuid }), body: PriceBody } },
      async (request) => {
        const tenantId = requireApiCaller(request);
        const existing = (await storage.prices.list(tenantId)).find((p) => p.id === request.params.id);
        if (!existing) throw new NotFoundError(`Model price ${request.params.id} not found.`);
        const price: ModelPrice = { ...existing, ...request.body, provider: request.body.provider ?? null };
        await storage.prices.put(price);
        return price;
      },
    );

    app.delete(
      "/model-price-map/:id",
      { schema: { hide: true, params: z.object({ id: Uuid }) } },
      async (request, reply) => {
        if (!(await storage.prices.remove(requireApiCaller(request), request.params.id))) {
          throw new NotFoundError(`Model price ${request.params.id} not found.`);
        }
        return reply.code(204).send();
      },
    );
  };
}
