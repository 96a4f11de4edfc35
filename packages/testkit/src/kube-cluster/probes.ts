// Small waits and probes startKubeCluster uses while its components come up.
import fs from "node:fs";
import https from "node:https";
import net from "node:net";

/** Asks the OS for a free loopback port (for programs that cannot pick one themselves). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("no free port"))));
    });
  });
}

export async function until(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  detail: () => string,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} not within ${timeoutMs} ms\n${detail()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export function httpsOk(url: string, ca: Buffer, token: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = https.get(
      url,
      { ca, headers: { authorization: `Bearer ${token}` }, timeout: 5_000 },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      },
    );
    req.on("error", () => resolve(false));
    req.on("timeout", () => req.destroy());
  });
}

export async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  return res.ok;
}

export function tail(file: string, lines: number): string {
  try {
    return fs.readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}
