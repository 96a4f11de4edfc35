import { BlockList, isIP } from "node:net";

/** Address ranges a webhook may not reach unless private targets are allowed (SSRF guard). */
function privateRanges(): BlockList {
  const list = new BlockList();
  for (const [net, prefix] of [
    ["0.0.0.0", 8],
    ["10.0.0.0", 8],
    ["100.64.0.0", 10],
    ["127.0.0.0", 8],
    ["169.254.0.0", 16],
    ["172.16.0.0", 12],
    ["192.168.0.0", 16],
    ["198.18.0.0", 15],
    ["224.0.0.0", 4],
    ["240.0.0.0", 4],
  ] as const) {
    list.addSubnet(net, prefix, "ipv4");
  }
  for (const [net, prefix] of [
    ["::", 128],
    ["::1", 128],
    ["fc00::", 7],
    ["fe80::", 10],
    ["ff00::", 8],
  ] as const) {
    list.addSubnet(net, prefix, "ipv6");
  }
  return list;
}

/** Decides whether an address (or a literal host) is one a webhook must not reach. */
export class AddressPolicy {
  private readonly blocked = privateRanges();

  constructor(private readonly allowPrivate: boolean) {}

  /** Whether a resolved IP address is allowed. */
  allows(address: string): boolean {
    if (this.allowPrivate) return true;
    // An IPv4-mapped IPv6 address is judged as the IPv4 address it carries. (A `::ffff:0:0/96`
    // rule cannot be used: BlockList matches plain IPv4 addresses against it too.)
    const mapped = address.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i)?.[1];
    const target = mapped ?? address;
    const family = isIP(target);
    if (family === 0) return false;
    return !this.blocked.check(target, family === 4 ? "ipv4" : "ipv6");
  }

  /** A reason to refuse the URL outright (scheme, or a literal private host), or null. */
  refuseUrl(url: string): string | null {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return "it is not a URL";
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return "only http and https are allowed";
    if (this.allowPrivate) return null;
    const host = parsed.hostname.replace(/^\[|\]$/g, "");
    if (host === "localhost" || host.endsWith(".localhost")) return "it names this machine";
    if (isIP(host) !== 0 && !this.allows(host)) return "it names a private or loopback address";
    return null;
  }
}
