import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { PrivateAddressGuard } from "@berth-platform/server-kit";

/** Redirects followed (each hop checked) before git is given the final URL. */
const MAX_REDIRECTS = 5;

/** A repository URL git may fetch, with the `-c` settings that hold it to the checked addresses. */
export interface GitTarget {
  url: string;
  /** `git -c` arguments: no redirects of its own, DNS answers pinned to the addresses checked. */
  config: string[];
}

/** How names are resolved (injectable for tests). */
export type ResolveAll = (hostname: string) => Promise<LookupAddress[]>;

const resolveAll: ResolveAll = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

/** The repository cannot be fetched from here: its address is loopback, private or reserved. */
export class PrivateTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PrivateTargetError";
  }
}

/**
 * Checks an http(s) repository URL at fetch time (issue 11 item 5): its name is resolved and every
 * address must be public; the smart-HTTP discovery request is made here, on those addresses, and
 * its redirects followed one checked hop at a time. git then fetches the final URL with redirects
 * off and its DNS answers pinned to the checked addresses (no rebinding in between). Other URLs
 * (file://, paths: checked against the configured git hosts) and trusted hosts pass unchanged; a
 * redirect from anywhere to a trusted host is followed there.
 */
export async function checkedGitTarget(
  url: string,
  options: { trusted?: (url: string) => boolean; resolve?: ResolveAll; timeoutMs?: number },
): Promise<GitTarget> {
  if (!/^https?:\/\//i.test(url)) return { url, config: [] };
  const trusted = options.trusted ?? (() => false);
  const guard = new PrivateAddressGuard();
  const resolve = options.resolve ?? resolveAll;
  let current = url;
  for (let hop = 0; ; hop += 1) {
    const parsed = new URL(current);
    const host = parsed.hostname.replace(/^\[|\]$/g, "");
    // A configured git host may be internal; where it redirects to is checked like any URL.
    const isTrusted = trusted(current);
    if (!isTrusted) {
      const refused = guard.refuseHost(parsed.hostname);
      if (refused) throw new PrivateTargetError(`${parsed.host}: ${refused}.`);
    }
    const addresses = isIP(host) !== 0 ? [{ address: host, family: isIP(host) }] : await resolve(host);
    const blocked = addresses.find((a) => guard.isPrivate(a.address));
    if (!isTrusted && (blocked || addresses.length === 0)) {
      throw new PrivateTargetError(
        `${parsed.hostname} resolves to ${blocked?.address ?? "nothing"}, a private or loopback address; repositories are fetched from public hosts only (BERTH_GIT_HOSTS can trust an internal one).`,
      );
    }
    const location = await discoveryRedirect(current, addresses, options.timeoutMs ?? 15_000);
    if (location === null) {
      const port = parsed.port || (parsed.protocol === "https:" ? "443" : "80");
      const pins = addresses.map((a) => (a.family === 6 ? `[${a.address}]` : a.address)).join(",");
      return {
        url: current,
        config: ["-c", "http.followRedirects=false", "-c", `http.curloptResolve=${host}:${port}:${pins}`],
      };
    }
    if (hop >= MAX_REDIRECTS) throw new PrivateTargetError(`${url}: more than ${MAX_REDIRECTS} redirects.`);
    current = repositoryUrlOf(new URL(location, discoveryUrl(current)).href, current);
  }
}

/** The smart-HTTP discovery URL of a repository URL. */
function discoveryUrl(repoUrl: string): string {
  const u = new URL(repoUrl);
  u.pathname = `${u.pathname.replace(/\/+$/, "")}/info/refs`;
  u.search = "?service=git-upload-pack";
  return u.href;
}

/** A redirected discovery URL back to a repository URL (as git does: strip `/info/refs…`). */
export function repositoryUrlOf(location: string, previous: string): string {
  const u = new URL(location);
  if (!/^https?:$/.test(u.protocol))
    throw new PrivateTargetError(`${previous} redirects to ${u.protocol} URL.`);
  u.pathname = u.pathname.replace(/\/info\/refs$/, "");
  u.search = "";
  return u.href.replace(/\/$/, "");
}

/** GETs the discovery URL on the checked addresses; the redirect's Location, or null when none. */
function discoveryRedirect(
  repoUrl: string,
  addresses: LookupAddress[],
  timeoutMs: number,
): Promise<string | null> {
  const target = new URL(discoveryUrl(repoUrl));
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      {
        method: "GET",
        headers: { "user-agent": "git/2 (berth)", "git-protocol": "version=2" },
        timeout: timeoutMs,
        // A fresh connection per discovery: Node 20's global agent keeps sockets alive, and a
        // pooled socket the server is closing (its keep-alive timeout) fails with "socket hang
        // up" (seen in CI under load); a pooled socket would also skip the pinned lookup below.
        agent: false,
        lookup: (_hostname, opts, callback) => {
          const first = addresses[0] as LookupAddress;
          if ((opts as { all?: boolean }).all)
            return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
          callback(null, first.address, first.family);
        },
      },
      (res) => {
        res.resume();
        const status = res.statusCode ?? 0;
        const location = res.headers.location;
        resolve(status >= 300 && status < 400 && location ? location : null);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer from ${target.host} within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end();
  });
}
