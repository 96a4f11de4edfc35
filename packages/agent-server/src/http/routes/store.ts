import {
  StoreDelete,
  StoreGetQuery,
  StoreListNamespaces,
  StorePut,
  StoreSearch,
} from "@berth-platform/schemas";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { StoreService } from "../../services/store.js";

/** `/store` routes: long-term memory items and namespaces. */
export function storeRoutes(store: StoreService): FastifyPluginAsyncZod {
  return async (app) => {
    app.put("/store/items", { schema: { body: StorePut } }, async (request, reply) => {
      await store.put(request.body);
      return reply.code(204).send();
    });
    app.get("/store/items", { schema: { querystring: StoreGetQuery } }, async (request, reply) => {
      const { namespace, key, refresh_ttl } = request.query;
      const item = await store.get(namespace, key, refresh_ttl);
      // A missing item is a JSON null, which the SDK turns into `null`.
      return reply.type("application/json").send(JSON.stringify(item));
    });
    app.delete("/store/items", { schema: { body: StoreDelete } }, async (request, reply) => {
      await store.delete(request.body.namespace, request.body.key);
      return reply.code(204).send();
    });
    app.post("/store/items/search", { schema: { body: StoreSearch.nullish() } }, async (request) => ({
      items: await store.search(StoreSearch.parse(request.body ?? {})),
    }));
    app.post("/store/namespaces", { schema: { body: StoreListNamespaces.nullish() } }, async (request) => ({
      namespaces: await store.listNamespaces(StoreListNamespaces.parse(request.body ?? {})),
    }));
  };
}
