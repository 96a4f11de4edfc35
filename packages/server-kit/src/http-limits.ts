import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerOptions,
  LogController,
} from "fastify";

/** Deepest JSON nesting a request body may have (stores and serialisers recurse over it). */
export const MAX_JSON_DEPTH = 500;

/**
 * Whether JSON text nests arrays/objects deeper than `max`: one pass over the text, no recursion,
 * so a body like `[[[[…]]]]` 100,000 deep is refused before any parser or store walks it.
 */
export function jsonDepthExceeds(text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i += 1;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth -= 1;
  }
  return false;
}

/** Time and connection limits of a server's HTTP listener. */
export interface HttpLimits {
  /** Time a client has to send a whole request, headers and body (0: unlimited). */
  requestTimeoutMs: number;
  /** Time a client has to send the request headers. */
  headersTimeoutMs: number;
  /** Open connections at most; more are refused by the kernel's backlog until one closes. */
  maxConnections: number;
}

/**
 * Fastify options that apply the limits: Node checks request deadlines on a timer, run every
 * second here (Node's default is 30 s, which would let a stalled body live that much longer).
 */
export function httpLimitOptions(limits: HttpLimits): Pick<
  FastifyServerOptions,
  "requestTimeout" | "connectionTimeout"
> & {
  http: { connectionsCheckingInterval: number; headersTimeout: number };
} {
  return {
    requestTimeout: limits.requestTimeoutMs,
    // Idle sockets are not limited here: streams and waits are idle on the client's side.
    connectionTimeout: 0,
    http: {
      connectionsCheckingInterval: 1_000,
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs || limits.headersTimeoutMs),
    },
  };
}

/** Caps the open connections of a built app's server (call before listening). */
export function capConnections(app: FastifyInstance, limits: HttpLimits): void {
  app.server.maxConnections = limits.maxConnections;
  app.server.headersTimeout = Math.min(
    limits.headersTimeoutMs,
    limits.requestTimeoutMs || limits.headersTimeoutMs,
  );
}

/** What `serviceApp` needs: the server's logger, the largest request body, and its limits. */
export interface ServiceAppOptions {
  logger: FastifyBaseLogger;
  bodyLimitBytes: number;
  requestTimeoutMs: number;
  maxConnections: number;
  /** Maps a request's URL before routing (e.g. a second mount point); absent: URLs as sent. */
  rewriteUrl?: ((url: string) => string) | undefined;
}

/**
 * The Fastify instance a Berth service listens with: no request logs (they would carry headers,
 * API keys among them; errors are logged without them), the body limit, the request and headers
 * deadlines and the connection cap, keep-alive longer than common load balancers' 60 s, and 503
 * for requests that arrive while it closes.
 */
export function serviceApp(options: ServiceAppOptions): FastifyInstance {
  const limits: HttpLimits = {
    requestTimeoutMs: options.requestTimeoutMs,
    headersTimeoutMs: 30_000,
    maxConnections: options.maxConnections,
  };
  const rewrite = options.rewriteUrl;
  const app = Fastify({
    loggerInstance: options.logger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimitBytes,
    // A client that stalls its request (headers or body) is cut off; idle responses are not.
    ...httpLimitOptions(limits),
    keepAliveTimeout: 65_000,
    return503OnClosing: true,
    ...(rewrite && { rewriteUrl: (request: { url?: string }) => rewrite(request.url ?? "/") }),
  });
  capConnections(app, limits);
  return app;
}
