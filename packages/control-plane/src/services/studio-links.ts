import crypto from "node:crypto";

/** What a Studio link grants: one deployment of one workspace, until it expires. */
export interface StudioGrant {
  tenantId: string;
  deploymentId: string;
  expiresAt: Date;
}

/** How long a link works (a working day: Studio is opened by a person, not kept in scripts). */
export const STUDIO_LINK_TTL_MS = 12 * 60 * 60 * 1000;

const VERSION = "s1";

/**
 * Credentials for LangGraph Studio, which calls an agent server from the browser with no way to
 * send a Berth API key: the grant is signed into a path segment of the base URL Studio is given
 * (`<control plane>/studio/<token>`), so every request Studio makes carries it. Stateless (HMAC
 * with a key derived from the secrets key); a link stops working when it expires, when its
 * deployment is gone, or when the secrets key changes.
 */
export class StudioLinks {
  constructor(private readonly key: Buffer) {}

  /**
   * A token for `deploymentId` of `tenantId` (both UUIDs), valid for `STUDIO_LINK_TTL_MS` from
   * `now`. Compact (75 characters: the two ids and the expiry as bytes, a 128-bit HMAC), as it is
   * one path segment and the router takes at most 100 characters per parameter.
   */
  mint(tenantId: string, deploymentId: string, now = new Date()): { token: string; expiresAt: Date } {
    const expiresAt = new Date(Math.ceil((now.getTime() + STUDIO_LINK_TTL_MS) / 1000) * 1000);
    const payload = Buffer.alloc(36);
    uuidBytes(tenantId).copy(payload, 0);
    uuidBytes(deploymentId).copy(payload, 16);
    payload.writeUInt32BE(expiresAt.getTime() / 1000, 32);
    const encoded = payload.toString("base64url");
    return { token: `${VERSION}.${encoded}.${this.#sign(encoded)}`, expiresAt };
  }

  /** The grant of a valid, unexpired token; null for anything else (never says which check failed). */
  verify(token: string, now = new Date()): StudioGrant | null {
    const [version, payload, signature, extra] = token.split(".");
    if (version !== VERSION || !payload || !signature || extra !== undefined) return null;
    const expected = Buffer.from(this.#sign(payload));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
    const bytes = Buffer.from(payload, "base64url");
    if (bytes.length !== 36) return null;
    const expiresAt = new Date(bytes.readUInt32BE(32) * 1000);
    if (expiresAt <= now) return null;
    return {
      tenantId: uuidOf(bytes.subarray(0, 16)),
      deploymentId: uuidOf(bytes.subarray(16, 32)),
      expiresAt,
    };
  }

  #sign(payload: string): string {
    return crypto
      .createHmac("sha256", this.key)
      .update(`${VERSION}.${payload}`)
      .digest()
      .subarray(0, 16)
      .toString("base64url");
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function uuidBytes(id: string): Buffer {
  if (!UUID.test(id)) throw new Error(`Studio links name UUIDs; got ${JSON.stringify(id)}.`);
  return Buffer.from(id.replace(/-/g, ""), "hex");
}

function uuidOf(bytes: Buffer): string {
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
