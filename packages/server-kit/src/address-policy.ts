import { BlockList, isIP } from "node:net";

/** IPv4 ranges no outbound request of a tenant may reach (loopback, private, link-local/metadata…). */
const PRIVATE_V4: ReadonlyArray<readonly [string, number]> = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

/** IPv6 ranges refused outright (besides those carrying an IPv4 address, judged by that address). */
const PRIVATE_V6: ReadonlyArray<readonly [string, number]> = [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard
  ["2001::", 32], // Teredo: tunnels to an address hidden in the bits
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated, still routed by some)
  ["ff00::", 8], // multicast
];

function blockList(): { v4: BlockList; v6: BlockList } {
  const v4 = new BlockList();
  for (const [net, prefix] of PRIVATE_V4) v4.addSubnet(net, prefix, "ipv4");
  const v6 = new BlockList();
  for (const [net, prefix] of PRIVATE_V6) v6.addSubnet(net, prefix, "ipv6");
  return { v4, v6 };
}

/** The 16 bytes of an IPv6 address (zone id dropped), or null when it is not one. */
export function ipv6Bytes(text: string): number[] | null {
  const address = text.replace(/%.*$/, "");
  if (isIP(address) !== 6) return null;
  let head = address;
  let tail: number[] = [];
  const dotted = address.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted?.[1] && dotted[2]) {
    head = `${dotted[1]}0:0`;
    tail = dotted[2].split(".").map(Number);
  }
  const [left = "", right] = head.split("::");
  const groupsOf = (part: string) => (part === "" ? [] : part.split(":"));
  const l = groupsOf(left);
  const r = right === undefined ? [] : groupsOf(right);
  const groups = right === undefined ? l : [...l, ...Array<string>(8 - l.length - r.length).fill("0"), ...r];
  if (groups.length !== 8) return null;
  const bytes = groups.flatMap((g) => {
    const n = Number.parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/**
 * The IPv4 address an IPv6 address carries and routes to: IPv4-mapped (`::ffff:0:0/96`),
 * IPv4-compatible (`::/96`), NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`), or null.
 */
export function embeddedIpv4(bytes: readonly number[]): string | null {
  const v4 = (offset: number) => bytes.slice(offset, offset + 4).join(".");
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return v4(12);
  if (zeros(0, 12)) return v4(12);
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12))
    return v4(12);
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return v4(2);
  return null;
}

/**
 * Decides whether an address is one an outbound request of a tenant (webhook, git fetch) must not
 * reach: loopback, private, link-local (cloud metadata), multicast, reserved, and every IPv6 form
 * that carries such an IPv4 address. A BlockList alone cannot express the embedded forms.
 */
export class PrivateAddressGuard {
  readonly #lists = blockList();

  /** Whether `address` (an IP literal, without brackets) is private; non-IPs count as private. */
  isPrivate(address: string): boolean {
    const family = isIP(address.replace(/%.*$/, ""));
    if (family === 4) return this.#lists.v4.check(address, "ipv4");
    if (family !== 6) return true;
    const bytes = ipv6Bytes(address);
    if (!bytes) return true;
    const carried = embeddedIpv4(bytes);
    if (carried !== null) return this.#lists.v4.check(carried, "ipv4");
    return this.#lists.v6.check(address.replace(/%.*$/, ""), "ipv6");
  }

  /**
   * Why a URL's host is refused before any lookup (`localhost` names, private IP literals in any
   * spelling the URL parser accepts), or null. Names are checked after resolution by the caller.
   */
  refuseHost(hostname: string): string | null {
    const host = hostname
      .replace(/^\[|\]$/g, "")
      .toLowerCase()
      .replace(/\.$/, "");
    if (host === "localhost" || host.endsWith(".localhost")) return "it names this machine";
    if (isIP(host.replace(/%.*$/, "")) !== 0 && this.isPrivate(host)) {
      return "it names a private or loopback address (or a link-local or reserved one)";
    }
    return null;
  }
}
