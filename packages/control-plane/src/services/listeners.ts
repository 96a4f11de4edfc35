import { randomBytes, randomUUID } from "node:crypto";
import type { Listener } from "../domain/types.js";
import { BadRequestError, NotFoundError } from "../errors.js";
import type { Vocabulary } from "../schemas/aliases.js";
import type { ListenerCreateRequest, ListenerPatchRequest } from "../schemas/listeners.js";
import type { ControlPlaneStorage } from "../storage/types.js";
import { hashApiKey } from "./auth.js";

/** A new listener key: 192 random bits, recognisable by its prefix (stored as its SHA-256 only). */
function newListenerKey(): string {
  return `berth_listener_${randomBytes(24).toString("base64url")}`;
}

/** Data-plane listener use cases, scoped to the caller's tenant. */
export class ListenerService {
  constructor(private readonly storage: ControlPlaneStorage) {}

  /**
   * Registers a listener; its key is in the result only (shown once, stored hashed). It is
   * answered in the vocabulary it was created in, for good (PATCHes in the other one do not move it).
   */
  async create(
    tenantId: string,
    request: ListenerCreateRequest,
    vocabulary: Vocabulary = "neutral",
  ): Promise<{ listener: Listener; key: string }> {
    const now = new Date().toISOString();
    const listener: Listener = {
      id: randomUUID(),
      tenant_id: tenantId,
      version: request.version ?? null,
      compute_type: "cluster",
      compute_id: request.compute_id,
      compute_config: { cluster_namespaces: request.compute_config.cluster_namespaces ?? null },
      vocabulary,
      created_at: now,
      updated_at: now,
      last_seen_at: null,
    };
    const key = newListenerKey();
    await this.storage.listeners.create(listener, hashApiKey(key));
    return { listener, key };
  }

  /** Replaces the listener's key (the old one stops working at once); the new key is shown once. */
  async rotateKey(tenantId: string, id: string): Promise<{ listener: Listener; key: string }> {
    const key = newListenerKey();
    const now = new Date().toISOString();
    if (!(await this.storage.listeners.setKeyHash(tenantId, id, hashApiKey(key), now))) {
      throw new NotFoundError(`Listener ID ${id} not found.`);
    }
    return { listener: await this.get(tenantId, id), key };
  }

  /** One page, newest first; `offset` is the next one to ask for. */
  async list(
    tenantId: string,
    options: { limit: number; offset: number },
  ): Promise<{ resources: Listener[]; offset: number }> {
    const resources = await this.storage.listeners.list(tenantId, options);
    return { resources, offset: options.offset + resources.length };
  }

  async get(tenantId: string, id: string): Promise<Listener> {
    const listener = await this.storage.listeners.get(tenantId, id);
    if (!listener) throw new NotFoundError(`Listener ID ${id} not found.`);
    return listener;
  }

  async patch(tenantId: string, id: string, request: ListenerPatchRequest): Promise<Listener> {
    const current = await this.get(tenantId, id);
    for (const field of ["compute_type", "compute_id"] as const) {
      if (request[field] !== undefined && request[field] !== null && request[field] !== current[field]) {
        throw new BadRequestError(`${field} is immutable.`);
      }
    }
    const updated: Listener = {
      ...current,
      version: request.version ?? current.version,
      compute_config: request.compute_config
        ? { cluster_namespaces: request.compute_config.cluster_namespaces ?? null }
        : current.compute_config,
      updated_at: new Date().toISOString(),
    };
    await this.storage.listeners.update(updated);
    return updated;
  }

  async delete(tenantId: string, id: string): Promise<void> {
    if (!(await this.storage.listeners.delete(tenantId, id)))
      throw new NotFoundError(`Listener ID ${id} not found.`);
  }
}
