import { randomUUID } from "node:crypto";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { RunShare } from "../../domain/sdk-types.js";
import type { TraceRun } from "../../domain/tracing.js";
import { NotFoundError } from "../../errors.js";
import type { TracingService } from "../../services/tracing.js";
import { requireApiCaller } from "../plugin.js";
import { CsvList, Uuid } from "../query.js";
import { runToLangSmith } from "../trace-wire.js";
import { RUN_SELECTS, type RunSelect, runToV2 } from "../v2-wire.js";
import { jsonBody } from "./langsmith-ingest.js";

const RunParams = z.object({ run_id: Uuid });
const TokenParams = z.object({ share_token: Uuid });

/** The shared run of a token and its trace's runs; 404 for a token that shares nothing. */
async function sharedTrace(
  tracing: TracingService,
  token: string,
): Promise<{ share: RunShare; runs: TraceRun[] }> {
  const share = await tracing.storage.shares.byToken(token);
  const run = share && (await tracing.storage.traces.get(share.tenant_id, share.run_id));
  if (!share || !run) throw new NotFoundError("Nothing is shared under this link.");
  const runs = await tracing.storage.traces.trace(share.tenant_id, run.trace_id ?? run.id);
  return { share, runs: runs.length > 0 ? runs : [run] };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The public page of a shared trace: read-only, every run with its inputs and outputs. */
function sharedPage(runs: TraceRun[]): string {
  const items = runs
    .map(
      (r) =>
        `<section><h2>${escapeHtml(r.name ?? r.id)} <small>${escapeHtml(r.run_type ?? "")}</small></h2>` +
        `<h3>Inputs</h3><pre>${escapeHtml(JSON.stringify(r.inputs, null, 2) ?? "")}</pre>` +
        `<h3>Outputs</h3><pre>${escapeHtml(JSON.stringify(r.outputs, null, 2) ?? "")}</pre>` +
        (r.error ? `<h3>Error</h3><pre>${escapeHtml(r.error)}</pre>` : "") +
        "</section>",
    )
    .join("");
  return `<!doctype html><meta charset="utf-8"><title>Shared trace</title><h1>Shared trace</h1>${items}`;
}

/**
 * Sharing runs by a public link (the SDK's shareRun / readRunSharedLink / unshareRun /
 * listSharedRuns, and `client.runs.share` / `client.public.runs`), and the public read-only
 * endpoints the link opens, which take no credential.
 */
export function shareRoutes(tracing: TracingService, v2: boolean): FastifyPluginAsyncZod {
  return async (app) => {
    // The SDK's shareRun sends its JSON body without a content type (fetch then says text/plain);
    // only these routes read such a body as JSON.
    app.addContentTypeParser("text/plain", { parseAs: "buffer", bodyLimit: 64 * 1024 }, jsonBody(64 * 1024));
    const share = async (tenantId: string, runId: string, token?: string) => {
      await tracing.run(tenantId, runId);
      return tracing.storage.shares.share({
        tenant_id: tenantId,
        run_id: runId,
        share_token: token ?? randomUUID(),
        created_at: new Date().toISOString(),
      });
    };
    app.put(
      "/runs/:run_id/share",
      {
        schema: {
          hide: true,
          params: RunParams,
          body: z.object({ share_token: Uuid.optional() }).passthrough(),
        },
      },
      async (request) => {
        const made = await share(requireApiCaller(request), request.params.run_id, request.body.share_token);
        return { run_id: made.run_id, share_token: made.share_token };
      },
    );
    app.get("/runs/:run_id/share", { schema: { hide: true, params: RunParams } }, async (request) => {
      const found = await tracing.storage.shares.ofRun(requireApiCaller(request), request.params.run_id);
      return found ? { run_id: found.run_id, share_token: found.share_token } : null;
    });
    app.delete("/runs/:run_id/share", { schema: { hide: true, params: RunParams } }, async (request) => {
      await tracing.storage.shares.unshare(requireApiCaller(request), request.params.run_id);
      return {};
    });
    if (!v2) return registerPublic(app, tracing);
    app.post(
      "/api/v2/runs/:run_id/share",
      { schema: { hide: true, params: RunParams } },
      async (request) => ({
        share_token: (await share(requireApiCaller(request), request.params.run_id)).share_token,
      }),
    );
    app.delete(
      "/api/v2/runs/:run_id/share",
      { schema: { hide: true, params: RunParams } },
      async (request) => {
        await tracing.storage.shares.unshare(requireApiCaller(request), request.params.run_id);
        return {};
      },
    );
    await registerPublic(app, tracing);
    app.post(
      "/api/v2/public/:share_token/runs/query",
      {
        schema: {
          hide: true,
          params: TokenParams,
          body: z
            .object({ selects: z.array(z.string().max(50)).max(100).optional() })
            .passthrough()
            .optional(),
        },
        config: { public: true },
      },
      async (request) => {
        const { share: found, runs } = await sharedTrace(tracing, request.params.share_token);
        const known = new Set<string>(RUN_SELECTS);
        const selects = (request.body?.selects ?? []).filter((f): f is RunSelect => known.has(f));
        const views = await tracing.views.of(found.tenant_id, runs, false);
        return { items: views.map((view) => runToV2(view, selects)) };
      },
    );
    app.get(
      "/api/v2/public/:share_token/run/:run_id",
      {
        schema: {
          hide: true,
          params: TokenParams.extend({ run_id: Uuid }),
          querystring: z
            .object({ selects: CsvList.pipe(z.array(z.enum(RUN_SELECTS))).optional() })
            .passthrough(),
        },
        config: { public: true },
      },
      async (request) => {
        const { share: found, runs } = await sharedTrace(tracing, request.params.share_token);
        const run = runs.find((r) => r.id === request.params.run_id);
        if (!run) throw new NotFoundError(`Run ${request.params.run_id} not found.`);
        const [view] = await tracing.views.of(found.tenant_id, [run], false);
        return runToV2(view as NonNullable<typeof view>, request.query.selects ?? []);
      },
    );
  };
}

/** The public read-only endpoints of a share link (no credential). */
async function registerPublic(
  app: Parameters<FastifyPluginAsyncZod>[0],
  tracing: TracingService,
): Promise<void> {
  const open = { hide: true, params: TokenParams };
  app.get("/public/:share_token/r", { schema: open, config: { public: true } }, async (request, reply) => {
    const { share: found, runs } = await sharedTrace(tracing, request.params.share_token);
    if (String(request.headers.accept ?? "").includes("text/html")) {
      return reply
        .type("text/html; charset=utf-8")
        .header("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'")
        .send(sharedPage(runs));
    }
    const views = await tracing.views.of(found.tenant_id, runs);
    return { run_id: found.run_id, runs: views.map(runToLangSmith) };
  });
  app.get("/public/:share_token/run", { schema: open, config: { public: true } }, async (request) => {
    const { share: found, runs } = await sharedTrace(tracing, request.params.share_token);
    const run = runs.find((r) => r.id === found.run_id) ?? runs[0];
    const [view] = await tracing.views.of(found.tenant_id, run ? [run] : []);
    return view ? runToLangSmith(view) : null;
  });
  app.get(
    "/public/:share_token/runs",
    {
      schema: { ...open, querystring: z.object({ id: CsvList.pipe(z.array(Uuid).max(100)).optional() }) },
      config: { public: true },
    },
    async (request) => {
      const { share: found, runs } = await sharedTrace(tracing, request.params.share_token);
      const ids = request.query.id ? new Set(request.query.id) : undefined;
      const views = await tracing.views.of(found.tenant_id, ids ? runs.filter((r) => ids.has(r.id)) : runs);
      return views.map(runToLangSmith);
    },
  );
}
