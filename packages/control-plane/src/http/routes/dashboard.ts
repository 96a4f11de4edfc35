import fs from "node:fs";
import path from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/** Where the built dashboard is and which URL paths it renders. */
export interface DashboardAssets {
  /** The build output: index.html and assets/ (with .br/.gz beside each file). */
  readonly dir: string;
  /** Path patterns answered with index.html (the app routes them in the browser). */
  readonly pagePatterns: readonly string[];
}

/**
 * The page's own rules: scripts, styles and calls only from this origin (the API key lives in
 * sessionStorage, so no third-party script may ever run here), no framing.
 */
const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Berth</title>
<p>The dashboard is not built: run <code>npm run build</code>. The API reference is at <a href="/docs">/docs</a>.</p>`;

/** index.html of the built dashboard, as stored and precompressed. */
export interface DashboardIndex {
  identity: Buffer;
  br: Buffer | undefined;
  gzip: Buffer | undefined;
}

function readIfExists(file: string): Buffer | undefined {
  return fs.existsSync(file) ? fs.readFileSync(file) : undefined;
}

/** The built index.html (read once: the build does not change under a running server), or undefined. */
export function readDashboardIndex(assets: DashboardAssets): DashboardIndex | undefined {
  const indexFile = path.join(assets.dir, "index.html");
  if (!fs.existsSync(indexFile)) return undefined;
  return {
    identity: fs.readFileSync(indexFile),
    br: readIfExists(`${indexFile}.br`),
    gzip: readIfExists(`${indexFile}.gz`),
  };
}

/** Whether a request is a browser's page load (it asks for HTML), not an API call. */
export function wantsPage(request: FastifyRequest): boolean {
  return (
    (request.method === "GET" || request.method === "HEAD") &&
    String(request.headers.accept ?? "").includes("text/html")
  );
}

/** Answers with the app's index.html (the app routes the path itself; its not-found page too). */
export function sendIndex(index: DashboardIndex, request: FastifyRequest, reply: FastifyReply) {
  const accepted = String(request.headers["accept-encoding"] ?? "");
  reply.headers(PAGE_HEADERS).header("vary", "accept-encoding").type("text/html; charset=utf-8");
  if (index.br && /\bbr\b/.test(accepted)) return reply.header("content-encoding", "br").send(index.br);
  if (index.gzip && /\bgzip\b/.test(accepted))
    return reply.header("content-encoding", "gzip").send(index.gzip);
  return reply.send(index.identity);
}

/**
 * The web dashboard: hashed assets under /assets/ (precompressed, cached for a year) and
 * index.html for every page path. Public like /docs: the app signs in with an API key itself.
 */
export async function dashboardRoutes(
  app: FastifyInstance,
  assets: DashboardAssets,
  index: DashboardIndex | undefined,
): Promise<void> {
  if (index) {
    await app.register(fastifyStatic, {
      root: path.join(assets.dir, "assets"),
      prefix: "/assets/",
      preCompressed: true,
      immutable: true,
      maxAge: "365d",
      index: false,
      decorateReply: false,
      schemaHide: true,
    });
  }
  for (const pattern of assets.pagePatterns) {
    app.get(pattern, { schema: { hide: true } }, async (request, reply) =>
      index
        ? sendIndex(index, request, reply)
        : reply.code(503).headers(PAGE_HEADERS).type("text/html; charset=utf-8").send(NOT_BUILT),
    );
  }
}
