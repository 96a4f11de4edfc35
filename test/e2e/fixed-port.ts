// A port for a private server that a test stops and starts again on the same port.
import net from "node:net";

/**
 * A port that is free now and below Linux's ephemeral range (32768 and up), so no outgoing
 * connection of another process takes it while the server (`what`) is stopped and restarted on it.
 */
export async function freeFixedPort(what: string): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once("error", () => resolve(false));
      probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free port found for ${what}`);
}
