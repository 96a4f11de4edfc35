import type { FastifyInstance } from "fastify";

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Public routes: health, the OpenAPI document and a readable list of operations. */
export async function systemRoutes(app: FastifyInstance): Promise<void> {
  app.get("/ok", { schema: { hide: true } }, async () => ({ ok: true }));
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  app.get("/docs", { schema: { hide: true } }, async (_request, reply) => {
    const doc = app.swagger() as { paths?: Record<string, Record<string, { tags?: string[] }>> };
    const rows: string[] = [];
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const method of METHODS) {
        const op = item[method];
        if (op) {
          rows.push(
            `<tr><td><code>${method.toUpperCase()}</code></td><td><code>${escapeHtml(path)}</code></td><td>${escapeHtml((op.tags ?? []).join(", "))}</td></tr>`,
          );
        }
      }
    }
    const html = `<!doctype html><html><head><meta charset="utf-8"><title>Berth control plane API</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem}td{padding:.2rem .8rem}</style></head><body>
<h1>Berth control plane API</h1>
<p>Send <code>X-Api-Key</code> (or <code>Authorization: Bearer</code>) on every call; <code>X-Tenant-Id</code> picks the workspace of a key that has several.
The full schema is at <a href="/openapi.json">/openapi.json</a>.</p>
<table>${rows.join("\n")}</table></body></html>`;
    return reply.type("text/html; charset=utf-8").send(html);
  });
}
