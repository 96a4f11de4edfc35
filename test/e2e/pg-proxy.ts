// A TCP proxy in front of PostgreSQL for fault tests: cut (a restart, as the agent server's
// processes see it) or lose the answer to one statement after the server ran it (a connection
// that drops between a commit and its acknowledgement).
import net from "node:net";

/** A statement to lose the answer to: armed until a reply carries `reply` (e.g. "UPDATE 1"). */
interface LostAnswer {
  statement: Buffer;
  reply: Buffer;
  fired: () => void;
}

export class PostgresProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private isCut = false;
  private lost: LostAnswer | undefined;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  /** A proxy to the server of `databaseUrl`, and the same URL pointed at the proxy. */
  static async open(databaseUrl: string): Promise<{ proxy: PostgresProxy; url: string }> {
    const target = new URL(databaseUrl);
    const proxy = new PostgresProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.open();
    const url = new URL(databaseUrl);
    url.hostname = "127.0.0.1";
    url.port = String(proxy.port);
    return { proxy, url: url.toString() };
  }

  /**
   * It keeps listening while cut: closing and re-binding its port raced with other processes'
   * ephemeral ports, and a lost bind hung the test until its timeout.
   */
  async open(): Promise<void> {
    const server = net.createServer((client) => this.connect(client));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", resolve);
    });
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
  }

  private connect(client: net.Socket): void {
    if (this.isCut) {
      client.destroy();
      return;
    }
    const upstream = net.connect(this.target.port, this.target.host);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
      socket.on("error", drop);
    }
    // While a watched statement's reply is being read, the server's bytes are held back.
    let held: Buffer[] | undefined;
    client.on("data", (chunk: Buffer) => {
      if (this.lost && !held && chunk.includes(this.lost.statement)) held = [];
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (!held) {
        client.write(chunk);
        return;
      }
      held.push(chunk);
      const reply = Buffer.concat(held);
      const lost = this.lost;
      if (lost && reply.includes(lost.reply)) {
        // Ran and committed on the server; the client never hears of it.
        this.lost = undefined;
        drop();
        lost.fired();
      } else if (reply.includes(Buffer.from("Z\0\0\0\x05"))) {
        // ReadyForQuery without the awaited reply: an answer of no interest, passed on.
        held = undefined;
        client.write(reply);
      }
    });
  }

  /**
   * Drops the connection that sends `statement` (text in its Parse message) as soon as the
   * server's reply carries `reply`, the reply unsent; resolves then. Other replies pass.
   */
  loseAnswer(statement: string, reply: string): Promise<void> {
    return new Promise((resolve) => {
      this.lost = { statement: Buffer.from(statement), reply: Buffer.from(reply), fired: resolve };
    });
  }

  /** Every connection dropped, new ones reset at once, until `restore`. */
  cut(): void {
    this.isCut = true;
    for (const socket of this.sockets) socket.destroy();
  }

  restore(): void {
    this.isCut = false;
  }

  async close(): Promise<void> {
    this.cut();
    const server = this.server;
    this.server = undefined;
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}
