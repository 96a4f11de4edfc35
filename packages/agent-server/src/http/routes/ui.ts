import path from "node:path";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { NotFoundError } from "../../errors.js";
import type { UiBundles } from "../../ui/bundle.js";

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

/** The host as a browser reaches it: loopback hosts get `http:`, others the page's own scheme. */
function origin(host: string | undefined): string {
  // The host goes into HTML: anything but a plain host[:port] gives a path relative to the page.
  if (!host || !/^[A-Za-z0-9.\-[\]:]+$/.test(host)) return "";
  const name = host.replace(/:\d+$/, "");
  return name === "localhost" || name === "127.0.0.1" ? `http://${host}` : `//${host}`;
}

/**
 * `POST /ui/{name}` answers the tags that load a UI component (stylesheets, then the script whose
 * onload renders `name` into the shadow root `{{shadowRootId}}` the SDK fills in), and
 * `GET /ui/{name}/{file}` serves the bundle's files: the official JS server's UI routes.
 */
export function uiRoutes(bundles: UiBundles): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      "/ui/:agent",
      { schema: { params: z.object({ agent: z.string() }), body: z.object({ name: z.string() }) } },
      async (request, reply) => {
        const { agent } = request.params;
        const files = bundles.get(agent);
        if (!files?.length) throw new NotFoundError(`UI not found for agent "${agent}"`);
        const base = `${origin(request.headers.host)}/ui/${encodeURIComponent(agent)}`;
        const tags = files
          .filter((f) => path.extname(f.basename) === ".css")
          .map((f) => `<link rel="stylesheet" href="${base}/${f.basename}" />`);
        const script = files.find((f) => path.extname(f.basename) === ".js");
        if (script) {
          const globalName = `__LGUI_${agent.replace(/[^a-zA-Z0-9]/g, "_")}`;
          // JSON.stringify inside a single-quoted attribute: escape what would end it.
          const name = JSON.stringify(request.body.name).replace(/'/g, "\\u0027").replace(/</g, "\\u003c");
          tags.push(
            `<script src="${base}/${script.basename}" onload='${globalName}.render(${name}, "{{shadowRootId}}")'></script>`,
          );
        }
        return reply.type("text/html; charset=utf-8").send(tags.join("\n"));
      },
    );
    app.get(
      "/ui/:agent/:basename",
      { schema: { params: z.object({ agent: z.string(), basename: z.string() }) } },
      async (request, reply) => {
        const file = bundles.get(request.params.agent)?.find((f) => f.basename === request.params.basename);
        if (!file) throw new NotFoundError("File not found");
        return reply
          .type(TYPES[path.extname(file.basename)] ?? "text/plain")
          .send(Buffer.from(file.contents));
      },
    );
  };
}
