import { PrivateAddressGuard } from "@berth-platform/server-kit";

/** Decides whether an address (or a literal host) is one a webhook must not reach. */
export class AddressPolicy {
  private readonly guard = new PrivateAddressGuard();

  constructor(private readonly allowPrivate: boolean) {}

  /** Whether a resolved IP address is allowed (every IPv6 form carrying an IPv4 address included). */
  allows(address: string): boolean {
    if (this.allowPrivate) return true;
    return !this.guard.isPrivate(address);
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
    return this.guard.refuseHost(parsed.hostname);
  }
}
