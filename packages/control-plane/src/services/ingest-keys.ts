import { createHmac, timingSafeEqual } from "node:crypto";

const PREFIX = "berth_trace_";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Whose traces a valid ingest key sends. */
export interface IngestKeyOwner {
  tenantId: string;
  deploymentId: string;
}

/**
 * Per-deployment trace ingest keys: `berth_trace_<tenant id>.<deployment id>_<HMAC of both>`. Derived, not
 * stored: the same deployment gets the same key after a restart (an adopted agent keeps working),
 * and a key only opens its own deployment's project. Rotating the secrets key revokes them all.
 */
export class IngestKeys {
  readonly #secret: Buffer;

  constructor(secret: Buffer) {
    this.#secret = Buffer.from(secret);
  }

  /** The ingest key of a deployment. */
  keyOf(tenantId: string, deploymentId: string): string {
    const owner = `${tenantId}.${deploymentId}`;
    return `${PREFIX}${owner}_${this.#mac(owner).toString("base64url")}`;
  }

  /** The deployment a key was made for, or null when the key is not one of ours. */
  ownerOf(key: string): IngestKeyOwner | null {
    if (!key.startsWith(PREFIX) || key.length > 300) return null;
    const rest = key.slice(PREFIX.length);
    const cut = rest.indexOf("_");
    if (cut < 0) return null;
    const owner = rest.slice(0, cut);
    const [tenantId = "", deploymentId = "", ...more] = owner.split(".");
    if (more.length > 0 || !/^[A-Za-z0-9-]{1,64}$/.test(tenantId) || !UUID.test(deploymentId)) return null;
    const given = Buffer.from(rest.slice(cut + 1), "base64url");
    const expected = this.#mac(owner);
    return given.length === expected.length && timingSafeEqual(given, expected)
      ? { tenantId, deploymentId }
      : null;
  }

  /** Whether a credential looks like an ingest key (and so is not an API key). */
  static looksLikeIngestKey(key: string): boolean {
    return key.startsWith(PREFIX);
  }

  #mac(owner: string): Buffer {
    return createHmac("sha256", this.#secret).update(`ingest:${owner}`).digest();
  }
}
