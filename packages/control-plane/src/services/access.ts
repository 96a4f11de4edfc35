import { randomUUID } from "node:crypto";
import { ForbiddenError, NotFoundError } from "../errors.js";
import type { ApiKeyRecord, KeyRole, Tenant, TenantStore } from "../storage/types.js";
import { type AuthService, generateApiKey, hashApiKey, type Principal } from "./auth.js";

/** How many characters of a key are kept to recognise it in lists (`berth_` + 6). */
const SHORT_KEY_LENGTH = 12;

/** What a new key is asked for with. */
export interface KeyRequest {
  description?: string | undefined;
  role?: KeyRole | undefined;
  /** The workspaces it reaches (default: the one the request acts in). */
  workspace_ids?: string[] | undefined;
  /** Days until it stops working (default: never). */
  expires_in_days?: number | undefined;
}

/** A key just made: its record and, this once, the key itself. */
export interface CreatedKey {
  record: ApiKeyRecord;
  key: string;
}

function requireAdmin(principal: Principal): void {
  if (principal.role !== "admin") {
    throw new ForbiddenError(
      "This API key has the member role: only admin keys manage workspaces and API keys.",
    );
  }
}

/** Workspaces and API keys: listing for every key, changes for admin keys only. */
export class AccessService {
  constructor(
    private readonly tenants: TenantStore,
    private readonly auth: AuthService,
  ) {}

  /** The workspaces the caller's key reaches. */
  workspaces(principal: Principal): Promise<Tenant[]> {
    return this.tenants.list(principal.tenantIds);
  }

  /** A new workspace, reachable by the admin key that made it. */
  async createWorkspace(principal: Principal, name: string): Promise<Tenant> {
    requireAdmin(principal);
    const tenant: Tenant = { id: randomUUID(), name, created_at: new Date().toISOString() };
    await this.tenants.create(tenant);
    await this.tenants.addKey(principal.keyHash, [tenant.id], tenant.created_at);
    this.auth.forget();
    return tenant;
  }

  /**
   * Keys that reach the workspace the request acts in, each showing only the workspaces the
   * caller reaches too (the ids of others' workspaces are not the caller's to know).
   */
  async keys(principal: Principal, tenantId: string): Promise<ApiKeyRecord[]> {
    requireAdmin(principal);
    const reach = new Set(principal.tenantIds);
    return (await this.tenants.keysOfTenant(tenantId)).map((key) => ({
      ...key,
      tenant_ids: key.tenant_ids.filter((id) => reach.has(id)),
    }));
  }

  /** A new key for workspaces the caller reaches (a foreign workspace id is a 404). */
  async createKey(principal: Principal, tenantId: string, request: KeyRequest): Promise<CreatedKey> {
    requireAdmin(principal);
    const workspaceIds = [...new Set(request.workspace_ids ?? [tenantId])];
    for (const id of workspaceIds) {
      if (!principal.tenantIds.includes(id)) throw new NotFoundError(`Workspace '${id}' not found.`);
    }
    return mintKey(this.tenants, workspaceIds, request);
  }

  /**
   * Revokes a key of the workspace the request acts in; it stops working at once. A key that also
   * reaches workspaces the caller does not is refused (403): an admin of one workspace must not
   * lock the others' admins (the bootstrap key among them) out.
   */
  async revokeKey(principal: Principal, tenantId: string, keyId: string): Promise<void> {
    requireAdmin(principal);
    const outcome = await this.tenants.deleteKey(keyId, tenantId, principal.tenantIds);
    if (outcome === "not_found") throw new NotFoundError(`API key '${keyId}' not found.`);
    if (outcome === "beyond_reach") {
      throw new ForbiddenError(
        `API key '${keyId}' also reaches workspaces this API key does not; only a key that reaches all of them may revoke it.`,
      );
    }
    this.auth.forget();
  }
}

/** Creates and stores a key for `workspaceIds`; used by the API and by offline minting. */
export async function mintKey(
  tenants: TenantStore,
  workspaceIds: string[],
  request: KeyRequest,
): Promise<CreatedKey> {
  const key = generateApiKey();
  const now = new Date();
  const expiresAt =
    request.expires_in_days === undefined
      ? null
      : new Date(now.getTime() + request.expires_in_days * 86_400_000).toISOString();
  const details = {
    id: randomUUID(),
    description: request.description ?? null,
    short_key: key.slice(0, SHORT_KEY_LENGTH),
    role: request.role ?? "member",
    expires_at: expiresAt,
  } as const;
  await tenants.addKey(hashApiKey(key), workspaceIds, now.toISOString(), details);
  return {
    key,
    record: {
      ...details,
      created_at: now.toISOString(),
      last_used_at: null,
      tenant_ids: workspaceIds,
    },
  };
}
