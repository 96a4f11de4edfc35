import type { FastifyInstance } from "fastify";

/**
 * The HTTP side of a shutdown: from `begin()` new requests get 503 (the listener stays open, so a
 * client sees an answer rather than a refused connection); at the grace deadline `cutOff()` ends
 * every response still open (streams, joins, waits) so the server can close at once.
 */
export class HttpDrain {
  #draining = false;

  /** Whether the server is shutting down (a client dropped now did not choose to leave). */
  get draining(): boolean {
    return this.#draining;
  }

  /** Installs the 503 hook; call before any route. */
  register(app: FastifyInstance): void {
    app.addHook("onRequest", async (_request, reply) => {
      if (!this.#draining) return;
      reply.header("connection", "close").header("retry-after", "5");
      return reply.code(503).send({ detail: "The server is shutting down; retry shortly." });
    });
  }

  /** From now on, new requests are answered 503. */
  begin(): void {
    this.#draining = true;
  }

  /** Ends every open connection (responses still streaming or waiting included). */
  cutOff(app: FastifyInstance): void {
    app.server.closeAllConnections();
  }

  /**
   * Closes the app once the runs are over: responses still open get `settleMs` to end by
   * themselves first (the last events of a run that just ended may still be on their way back
   * through Redis), then every connection is cut.
   */
  async close(app: FastifyInstance, settleMs: number): Promise<void> {
    const closed = app.close();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, settleMs)))]);
    clearTimeout(timer);
    this.cutOff(app);
    await closed;
  }
}
