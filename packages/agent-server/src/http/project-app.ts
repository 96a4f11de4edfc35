import fs from "node:fs";
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { pathToFileURL } from "node:url";
import type { FastifyInstance } from "fastify";

/** What Berth uses of a Hono app (duck-typed: the project brings its own copy of Hono). */
export interface HonoLike {
  fetch(request: Request, env?: unknown): Response | Promise<Response>;
  route(path: string, app: HonoLike): unknown;
  all(
    path: string,
    handler: (c: { req: { raw: Request }; env: unknown; body?: (data: null) => Response }) => Response,
  ): unknown;
}

/** Whether a value looks like a Hono app. */
export function isHonoLike(value: unknown): value is HonoLike {
  const v = value as Record<string, unknown> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.fetch === "function" &&
    typeof v.route === "function" &&
    typeof v.all === "function"
  );
}

/**
 * Imports the project's HTTP app (`http.app`, "./src/app.ts:app"): TypeScript goes through the tsx
 * hooks the composition root registered. A missing module or export stops the start, as it does
 * the official server.
 */
export async function loadProjectApp(spec: { modulePath: string; exportName: string }): Promise<HonoLike> {
  const where = `${spec.modulePath}:${spec.exportName}`;
  if (!fs.existsSync(spec.modulePath))
    throw new Error(`Cannot load the HTTP app ${where}: the file does not exist`);
  const mod = (await import(pathToFileURL(spec.modulePath).href)) as Record<string, unknown>;
  const cjs = mod.default as Record<string, unknown> | undefined;
  const value =
    mod[spec.exportName] ?? (typeof cjs === "object" && cjs !== null ? cjs[spec.exportName] : undefined);
  if (!isHonoLike(value)) {
    throw new Error(`Cannot load the HTTP app ${where}: the export is not a Hono app (fetch, route, all)`);
  }
  return value;
}

/** The environment Hono handlers see: Node's request and response (as @hono/node-server gives). */
const CORE = Symbol("berth.core");
type Env = { incoming: IncomingMessage; outgoing: unknown; [CORE]: (request: Request) => void };

/** A request body read only when someone reads it, remembering what was read for Fastify. */
class LazyBody {
  readonly consumed: Buffer[] = [];
  private iterator: AsyncIterator<Buffer> | undefined;
  private size = 0;
  /** Set when the body went past the limit: the request is answered 413 whatever the app did. */
  tooLarge = false;

  constructor(
    private readonly raw: IncomingMessage,
    private readonly limit: number,
  ) {}

  get used(): boolean {
    return this.iterator !== undefined;
  }

  /** A web stream that pulls from the Node request on demand (highWaterMark 0: nothing read up front). */
  stream(): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          this.iterator ??= this.raw[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
          const next = await this.iterator.next();
          if (!next.done) this.size += next.value.length;
          if (next.done) controller.close();
          else if (this.size > this.limit) {
            this.tooLarge = true;
            controller.error(new Error("Request body is too large"));
          } else {
            this.consumed.push(next.value);
            controller.enqueue(new Uint8Array(next.value));
          }
        },
      },
      { highWaterMark: 0 },
    );
  }

  /** The whole body again for Fastify's parser: what the project's app read, then the rest. */
  replay(): Readable {
    const { consumed } = this;
    const rest = this.iterator;
    return Readable.from(
      (async function* () {
        yield* consumed;
        if (!rest) return;
        for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
      })(),
    );
  }
}

/**
 * Puts the project's Hono app in front of the core routes, as the official JS server mounts it
 * before its own: its routes are served (they win over core routes of the same path), and its
 * middleware runs before every core route, sees the request, may change its headers, answer it
 * instead, or add headers to the core's response. Runs after CORS, the agent token and custom auth
 * (the official server's order too); the core route then runs as usual, streaming included.
 */
export function registerProjectApp(app: FastifyInstance, project: HonoLike, bodyLimit: number): void {
  // A Hono of the project's own copy, so `route` composes the project's app as Hono itself would.
  const outer = new (project.constructor as new () => HonoLike)();
  outer.route("/", project);
  outer.all("*", (c) => {
    (c.env as Env)[CORE](c.req.raw);
    // Through the context, so headers the middleware set before next() apply, as on a core response.
    return c.body ? c.body(null) : new Response(null);
  });
  const replays = new WeakMap<IncomingMessage, LazyBody>();

  app.addHook("onRequest", async (request, reply) => {
    const raw = request.raw;
    // The rest of an oversized body is read and dropped, so the client gets the 413 rather than a
    // reset mid-upload (the request timeout still bounds a client that never stops).
    const tooLarge = () => {
      raw.resume();
      return reply.code(413).send({ detail: "Request body is too large" });
    };
    // The server's body limit holds for the project's routes too (Fastify's parser never sees them).
    if (Number(raw.headers["content-length"] ?? 0) > bodyLimit) return tooLarge();
    const headers = new Headers();
    for (const [name, value] of Object.entries(raw.headers)) {
      if (typeof value === "string") headers.set(name, value);
      else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    }
    const body = new LazyBody(raw, bodyLimit);
    const hasBody = request.method !== "GET" && request.method !== "HEAD";
    const webRequest = new Request(`${request.protocol}://${request.host}${request.url}`, {
      method: request.method,
      headers,
      ...(hasBody ? { body: body.stream(), duplex: "half" } : {}),
    } as RequestInit);
    let core: Request | undefined;
    const env: Env = {
      incoming: raw,
      outgoing: reply.raw,
      [CORE]: (r) => {
        core = r;
      },
    };
    const response = await outer.fetch(webRequest, env);
    if (body.tooLarge) return tooLarge();

    if (core === undefined) {
      // The project's app answered (its own route, or middleware that stopped the request).
      reply.code(response.status);
      for (const [name, value] of response.headers) if (name !== "set-cookie") reply.header(name, value);
      const cookies = response.headers.getSetCookie();
      if (cookies.length > 0) reply.header("set-cookie", cookies);
      return reply.send(response.body ? Readable.fromWeb(response.body as NodeReadableStream) : "");
    }
    // On to the core route, with the request headers the middleware left.
    const seen = new Set<string>();
    for (const [name, value] of core.headers) {
      seen.add(name);
      if (raw.headers[name] !== value && name !== "set-cookie") raw.headers[name] = value;
    }
    for (const name of Object.keys(raw.headers)) if (!seen.has(name)) delete raw.headers[name];
    for (const [name, value] of response.headers) reply.header(name, value);
    if (body.used) replays.set(raw, body);
  });

  // A body the middleware read is given to Fastify's parser again.
  app.addHook(
    "preParsing",
    async (request, _reply, payload) => replays.get(request.raw)?.replay() ?? payload,
  );
}
