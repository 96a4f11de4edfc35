import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { OpenApiDocument } from "../api-documents.js";
import { referencePage } from "../docs-page.js";

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

/**
 * Same origin only; swagger-ui's inline styles allowed; no `upgrade-insecure-requests` (a control
 * plane reached by plain http on another address would never get its assets over https).
 */
const DOCS_CSP =
  "default-src 'self'; base-uri 'self'; font-src 'self' data:; frame-ancestors 'self'; " +
  "img-src 'self' data:; object-src 'none'; script-src 'self'; script-src-attr 'none'; " +
  "style-src 'self' 'unsafe-inline'; connect-src 'self'";

/** swagger-ui's files as @fastify/swagger-ui ships them (swagger-ui-dist, no CDN). */
const STATIC_TYPES: Record<string, string> = {
  "swagger-ui-bundle.js": "application/javascript; charset=utf-8",
  "swagger-ui.css": "text/css; charset=utf-8",
  "favicon-32x32.png": "image/png",
  "favicon-16x16.png": "image/png",
};

type Encoding = "identity" | "gzip" | "br";

/** The encoding to answer with: brotli, else gzip, else none (Chromium asks brotli over https and localhost only). */
function encodingOf(request: FastifyRequest): Encoding {
  const accepted = String(request.headers["accept-encoding"] ?? "");
  if (/\bbr\b/.test(accepted)) return "br";
  if (/\bgzip\b/.test(accepted)) return "gzip";
  return "identity";
}

function compress(body: Buffer, encoding: Encoding): Promise<Buffer> {
  if (encoding === "gzip") return gzip(body, { level: 6 });
  // Quality 5: close to the best ratio for these files at a small fraction of quality 11's CPU.
  if (encoding === "br") return brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } });
  return Promise.resolve(body);
}

function page(version: string): string {
  const v = encodeURIComponent(version);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Berth API reference (Swagger UI)</title>
<link rel="stylesheet" href="/docs/static/swagger-ui.css?v=${v}">
<link rel="icon" type="image/png" href="/docs/static/favicon-32x32.png?v=${v}" sizes="32x32">
<link rel="preload" href="/docs/json" as="fetch" crossorigin="anonymous">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/static/swagger-ui-bundle.js?v=${v}"></script>
<script src="/docs/static/swagger-initializer.js?v=${v}"></script>
</body>
</html>
`;
}

/**
 * No standalone preset (its top bar only picks among documents, and there is one): 260 KB of
 * script less. Models are collapsed: the operations are what a reader looks for first.
 */
const INITIALIZER = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/docs/json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    docExpansion: "list",
    defaultModelsExpandDepth: -1,
    persistAuthorization: false,
    tryItOutEnabled: false,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
`;

/**
 * `/docs`: one server-rendered page of the three APIs' operations (docs-page.ts); `/docs/swagger`:
 * swagger-ui over the same document (`/docs/json`), its assets compressed (1.7 MB of script is
 * 0.4 MB as brotli) and cached by the browser under a versioned URL. The document is built once.
 */
export function docsRoutes(
  app: FastifyInstance,
  options: { version: string; document: () => Promise<OpenApiDocument>; warmup: boolean },
): void {
  const staticDir = path.join(
    path.dirname(createRequire(import.meta.url).resolve("@fastify/swagger-ui/package.json")),
    "static",
  );
  // Bodies by key and encoding, made on first use (a few MB for the process's life).
  const bodies = new Map<string, Promise<Buffer>>();
  const once = (key: string, make: () => Promise<Buffer>): Promise<Buffer> => {
    let entry = bodies.get(key);
    if (!entry) {
      entry = make();
      entry.catch(() => bodies.delete(key));
      bodies.set(key, entry);
    }
    return entry;
  };
  let document: Promise<OpenApiDocument> | undefined;
  const theDocument = () => {
    document ??= options.document();
    document.catch(() => {
      document = undefined;
    });
    return document;
  };
  const sources: Record<string, () => Promise<Buffer>> = {
    reference: async () => Buffer.from(referencePage(await theDocument())),
    swagger: async () => Buffer.from(page(options.version)),
    init: async () => Buffer.from(INITIALIZER),
    json: async () => Buffer.from(JSON.stringify(await theDocument())),
  };
  for (const file of Object.keys(STATIC_TYPES)) {
    sources[file] = () => fs.promises.readFile(path.join(staticDir, file));
  }
  const body = (key: string, encoding: Encoding): Promise<Buffer> => {
    const source = sources[key] as () => Promise<Buffer>;
    const identity = once(key, source);
    return encoding === "identity"
      ? identity
      : once(`${key}.${encoding}`, async () => compress(await identity, encoding));
  };
  const send = async (request: FastifyRequest, reply: FastifyReply, key: string, compressible: boolean) => {
    const encoding = compressible ? encodingOf(request) : "identity";
    if (compressible) reply.header("vary", "accept-encoding");
    if (encoding !== "identity") reply.header("content-encoding", encoding);
    return reply.send(await body(key, encoding));
  };
  const IMMUTABLE = "public, max-age=31536000, immutable";

  const pageOf = (key: string) => (request: FastifyRequest, reply: FastifyReply) => {
    reply
      .header("content-security-policy", DOCS_CSP)
      .header("cache-control", "no-cache")
      .type("text/html; charset=utf-8");
    return send(request, reply, key, true);
  };
  app.get("/docs", { schema: { hide: true } }, pageOf("reference"));
  app.get("/docs/", { schema: { hide: true } }, pageOf("reference"));
  app.get("/docs/swagger", { schema: { hide: true } }, pageOf("swagger"));
  app.get("/docs/json", { schema: { hide: true } }, (request, reply) => {
    reply.header("cache-control", "no-cache").type("application/json; charset=utf-8");
    return send(request, reply, "json", true);
  });
  app.get("/docs/static/swagger-initializer.js", { schema: { hide: true } }, (request, reply) => {
    reply.header("cache-control", IMMUTABLE).type("application/javascript; charset=utf-8");
    return send(request, reply, "init", true);
  });
  app.get<{ Params: { file: string } }>(
    "/docs/static/:file",
    { schema: { hide: true } },
    (request, reply) => {
      const type = STATIC_TYPES[request.params.file];
      if (!type) return reply.code(404).send({ detail: "Not Found" });
      reply.header("cache-control", IMMUTABLE).type(type);
      return send(request, reply, request.params.file, !type.startsWith("image/"));
    },
  );

  if (options.warmup) {
    // A first visitor would otherwise wait for the document (about 0.5 s of CPU: the agent
    // server's routes are loaded to describe them) and the bundle's compression. Done once, a
    // few seconds after the server listens, off the start-up path.
    app.addHook("onListen", async () => {
      setTimeout(() => {
        void Promise.all([
          body("reference", "br"),
          body("reference", "gzip"),
          body("json", "br"),
          body("json", "gzip"),
          body("swagger-ui-bundle.js", "br"),
          body("swagger-ui-bundle.js", "gzip"),
          body("swagger-ui.css", "br"),
          body("swagger-ui.css", "gzip"),
        ]).catch(() => undefined);
      }, 3_000).unref();
    });
  }
}
