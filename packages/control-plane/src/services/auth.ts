import { createHash, randomBytes, randomUUID } from "node:crypto";
import { ForbiddenError, UnauthorizedError } from "../errors.js";
import type { ApiKeyRecord, KeyRole, TenantStore } from "../storage/types.js";

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

/** `--api-key`/`BERTH_API_KEY` names a key this (non-empty) database does not know. */
export class UnknownBootstrapKeyError extends Error {
  constructor() {
    super(
      "the given --api-key/BERTH_API_KEY is not a key of this data directory, which already has keys; " +
        "it is only used to create the first key of an empty one. Start without it, or mint a key for " +
        "this data directory with `berth keys create --data-dir <dir> --role admin`.",
    );
    this.name = "UnknownBootstrapKeyError";
  }
}

/** Result of the first-start bootstrap. */
export interface BootstrapResult {
  /** The admin key created now (to print once), or null when none was generated. */
  generatedKey: string | null;
  /** The workspace created now (first start on an empty database), else null. */
  createdTenantId: string | null;
}

/** How long a key's record is remembered: key changes made elsewhere take effect within this time. */
const KEY_CACHE_MS = 10_000;
const KEY_CACHE_ENTRIES = 1_000;

/** Who is calling: the key (by hash and id), its role and the workspaces it reaches. */
export interface Principal {
  keyHash: string;
  keyId: string;
  role: KeyRole;
  tenantIds: string[];
}

/** API keys → principal and tenant. */
export class AuthService {
  /** Key hash → its record; saves a query per request (only known keys are cached). */
  private readonly cache = new Map<string, { key: ApiKeyRecord; until: number }>();

  constructor(
    private readonly tenants: TenantStore,
    private readonly onTouchError: (error: unknown) => void = () => {},
  ) {}

  private async keyOf(keyHash: string): Promise<ApiKeyRecord | null> {
    const now = Date.now();
    const hit = this.cache.get(keyHash);
    if (hit && hit.until > now) return hit.key;
    const key = await this.tenants.keyByHash(keyHash);
    if (key && key.tenant_ids.length > 0) {
      if (this.cache.size >= KEY_CACHE_ENTRIES) this.cache.clear();
      this.cache.set(keyHash, { key, until: now + KEY_CACHE_MS });
      // Last use is recorded when the cached record is refreshed (at most every KEY_CACHE_MS per
      // key), not on every request, and never delays the request.
      this.tenants.touchKey(keyHash, new Date(now).toISOString()).catch(this.onTouchError);
    }
    return key;
  }

  /** Forgets cached keys (after a key was revoked here, so it stops working at once). */
  forget(): void {
    this.cache.clear();
  }

  /** The caller behind a credential; 401 without a valid, unexpired key. */
  async principal(credentials: Credentials): Promise<Principal> {
    const key = credentials.apiKey ?? bearerToken(credentials.authorization);
    if (!key || key.length > 512) throw new UnauthorizedError();
    const keyHash = hashApiKey(key);
    const record = await this.keyOf(keyHash);
    if (!record || record.tenant_ids.length === 0) throw new UnauthorizedError();
    if (record.expires_at !== null && Date.parse(record.expires_at) <= Date.now()) {
      throw new UnauthorizedError("This API key has expired.");
    }
    return { keyHash, keyId: record.id, role: record.role, tenantIds: record.tenant_ids };
  }

  /** The tenant a request acts for; 401 without a valid key, 403 when the tenant choice is not allowed. */
  async authenticate(credentials: Credentials): Promise<string> {
    return (await this.authenticatePrincipal(credentials)).tenantId;
  }

  /** The caller and the tenant the request acts for (see `authenticate`). */
  async authenticatePrincipal(credentials: Credentials): Promise<{ principal: Principal; tenantId: string }> {
    const principal = await this.principal(credentials);
    return { principal, tenantId: chooseTenant(principal, credentials.tenantId) };
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
      // A key given for a data directory that already has keys is not added (that would let
      // anyone who can start the process grant themselves access); saying nothing would leave the
      // operator with a key that does not work, so starting fails instead.
      if (!known) throw new UnknownBootstrapKeyError();
      return { generatedKey: null, createdTenantId: null };
    }
    const tenantId = randomUUID();
    await this.tenants.create({ id: tenantId, name: "default", created_at: now });
    const key = configuredKey ?? generateApiKey();
    await this.tenants.addKey(hashApiKey(key), [tenantId], now);
    return {
      generatedKey: configuredKey ? null : key,
      createdTenantId: tenantId,
    };
  }
}

/** The workspace a principal acts in: the one it names (X-Tenant-Id), or its only one. */
export function chooseTenant(principal: Principal, tenantHeader: string | undefined): string {
  const wanted = tenantHeader?.trim().toLowerCase();
  if (wanted) {
    if (!principal.tenantIds.includes(wanted)) {
      throw new ForbiddenError(`This API key has no access to workspace '${wanted.slice(0, 64)}'.`);
    }
    return wanted;
  }
  const [only, ...others] = principal.tenantIds;
  if (only === undefined || others.length > 0) {
    throw new ForbiddenError(
      "This API key belongs to several workspaces: the request requires workspace specification (X-Tenant-Id).",
    );
  }
  return only;
}

function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}
