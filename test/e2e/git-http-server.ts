// A git smart-HTTP server for tests: `git http-backend` behind node:http (CGI), serving the
// repositories of one directory, counting requests, with optional redirects.
import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";

/** A running test git server. */
export interface GitHttpServer {
  port: number;
  /** Requests received so far. */
  hits: number;
  close(): Promise<void>;
}

/**
 * Serves `root`'s repositories at `/<name>.git`; a path listed in `redirects` (a repository path
 * prefix such as `/moved.git`) answers 301 to the given base URL instead, the rest of the path kept.
 */
export async function startGitHttpServer(
  root: string,
  redirects: Record<string, string> = {},
  host = "127.0.0.1",
): Promise<GitHttpServer> {
  const state = { hits: 0 };
  const server = http.createServer((req, res) => {
    state.hits += 1;
    const url = new URL(req.url ?? "/", "http://x");
    for (const [prefix, to] of Object.entries(redirects)) {
      if (url.pathname.startsWith(prefix)) {
        res.writeHead(301, { location: `${to}${url.pathname.slice(prefix.length)}${url.search}` });
        res.end();
        return;
      }
    }
    const cgi = spawn("git", ["http-backend"], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: "1",
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? "GET",
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        REMOTE_ADDR: "127.0.0.1",
        ...(req.headers["git-protocol"] ? { GIT_PROTOCOL: String(req.headers["git-protocol"]) } : {}),
        ...(req.headers["content-encoding"]
          ? { HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"]) }
          : {}),
      },
      stdio: ["pipe", "pipe", "ignore"],
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on("data", (chunk: Buffer) => {
      if (headersDone) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString().split("\r\n")) {
        const at = line.indexOf(":");
        const name = line.slice(0, at).trim();
        const value = line.slice(at + 1).trim();
        if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
        else res.setHeader(name, value);
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    cgi.on("close", () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get hits() {
      return state.hits;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
