import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";

/** Where to listen; with `portFallback` a taken port moves on to the next free one. */
export interface ListenOptions {
  host: string;
  port: number;
  portFallback: boolean;
  /** Called when the port was taken and another one is used. */
  onPortMoved?: ((from: number, to: number) => void) | undefined;
}

const PORT_FALLBACK_TRIES = 20;

/** Listens and returns the server's URL; a taken port is a clear error (or, with fallback, the next one). */
export async function listenWithFallback(app: FastifyInstance, options: ListenOptions): Promise<string> {
  const tries = options.portFallback ? PORT_FALLBACK_TRIES : 1;
  for (let i = 0; i < tries; i += 1) {
    const port = options.port === 0 ? 0 : options.port + i;
    try {
      await app.listen({ host: options.host, port });
      const address = app.server.address() as AddressInfo;
      if (i > 0) options.onPortMoved?.(options.port, address.port);
      const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
      return `http://${host}:${address.port}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
    }
  }
  const last = options.port + tries - 1;
  throw new Error(
    tries > 1
      ? `Ports ${options.port}–${last} on ${options.host} are all in use; choose a free one with --port.`
      : `Port ${options.port} on ${options.host} is already in use; choose another with --port (0 picks a free one).`,
  );
}
