import { createHash, randomBytes, randomUUID } from "node:crypto";
import { ForbiddenError, UnauthorizedError } from "../errors.js";
import type { TenantStore } from "../storage/types.js";

/** The stored form of an API key: its SHA-256 (keys are 192-bit random, so no salt or slow hash is needed). */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** A new random API key. */
export function generateApiKey(): string {
  return `berth_${randomBytes(24).toString("base64url")}`;
}

/** The credential parts of a request. */
export interface Credentials {
  apiKey?: string | undefined;
  authorization?: string | undefined;
  tenantId?: string | undefined;
}

/** Result of the first-start bootstrap. */
export interface BootstrapResult {
  /** The admin key created now (to print once), or null when none was generated. */
  generatedKey: string | null;
  /** A configured bootstrap key that is not known to a non-empty database (ignored). */
  ignoredConfiguredKey: boolean;
  /** The workspace created now (first start on an empty database), else null. */
  createdTenantId: string | null;
}

/** How long a key's tenants are remembered: key changes take effect within this time. */
const KEY_CACHE_MS = 10_000;
const KEY_CACHE_ENTRIES = 1_000;

/** API keys → tenant. */
export class AuthService {
  /** Key hash → its tenants; saves a query per request (only known keys are cached). */
  private readonly cache = new Map<string, { tenantIds: string[]; until: number }>();

  constructor(private readonly tenants: TenantStore) {}

  private async tenantsOf(keyHash: string): Promise<string[]> {
    const now = Date.now();
    const hit = this.cache.get(keyHash);
    if (hit && hit.until > now) return hit.tenantIds;
    const tenantIds = await this.tenants.tenantsOfKey(keyHash);
    if (tenantIds.length > 0) {
      if (this.cache.size >= KEY_CACHE_ENTRIES) this.cache.clear();
      this.cache.set(keyHash, { tenantIds, until: now + KEY_CACHE_MS });
    }
    return tenantIds;
  }

  /** The tenant a request acts for; 401 without a valid key, 403 when the tenant choice is not allowed. */
  async authenticate(credentials: Credentials): Promise<string> {
    const key = credentials.apiKey ?? bearerToken(credentials.authorization);
    if (!key || key.length > 512) throw new UnauthorizedError();
    const tenantIds = await this.tenantsOf(hashApiKey(key));
    if (tenantIds.length === 0) throw new UnauthorizedError();
    const wanted = credentials.tenantId?.trim().toLowerCase();
    if (wanted) {
      if (!tenantIds.includes(wanted)) {
        throw new ForbiddenError(`This API key has no access to workspace '${wanted.slice(0, 64)}'.`);
      }
      return wanted;
    }
    const [only, ...others] = tenantIds;
    if (only === undefined || others.length > 0) {
      throw new ForbiddenError(
        "This API key belongs to several workspaces: the request requires workspace specification (X-Tenant-Id).",
      );
    }
    return only;
  }

  /**
   * On an empty database: creates the first tenant and its admin key (the configured one, or a new
   * random one returned to be printed once). Only the key's hash is stored.
   */
  async bootstrap(configuredKey: string | null, now: string): Promise<BootstrapResult> {
    if ((await this.tenants.count()) > 0) {
      const known = configuredKey
        ? (await this.tenants.tenantsOfKey(hashApiKey(configuredKey))).length > 0
        : true;
      return { generatedKey: null, ignoredConfiguredKey: !known, createdTenantId: null };
    }
    const tenantId = randomUUID();
    await this.tenants.create({ id: tenantId, name: "default", created_at: now });
    const key = configuredKey ?? generateApiKey();
    await this.tenants.addKey(hashApiKey(key), [tenantId], now);
    return {
      generatedKey: configuredKey ? null : key,
      ignoredConfiguredKey: false,
      createdTenantId: tenantId,
    };
  }
}

function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}
