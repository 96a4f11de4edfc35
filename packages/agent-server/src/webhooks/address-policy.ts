import { PrivateAddressGuard } from "@berth-platform/server-kit";

/** Whether a webhook names a path of the server's own app ("/custom/hook", not "//host/..."). */
export function isOwnAppPath(url: string): boolean {
  return /^\/(?![/\\])/.test(url);
}

/** Decides whether an address (or a literal host) is one a webhook must not reach. */
export class AddressPolicy {
  private readonly guard = new PrivateAddressGuard();

  constructor(private readonly allowPrivate: boolean) {}

  /** Whether a resolved IP address is allowed (every IPv6 form carrying an IPv4 address included). */
  allows(address: string): boolean {
    if (this.allowPrivate) return true;
    return !this.guard.isPrivate(address);
  }

  /** A reason to refuse the URL outright (scheme, or a literal private host), or null; never a path of the server's own app. */
  refuseUrl(url: string): string | null {
    // The server's own app is not an outside address: it is delivered to through the loopback.
    if (isOwnAppPath(url)) return null;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return "it is not a URL";
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return "only http and https are allowed";
    if (this.allowPrivate) return null;
    return this.guard.refuseHost(parsed.hostname);
  }
}
