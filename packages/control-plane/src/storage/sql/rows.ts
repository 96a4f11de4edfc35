import type { Selectable } from "kysely";
import type { DeploymentStatus } from "../../domain/deployment-status.js";
import type { RevisionStatus } from "../../domain/revision-status.js";
import type { Deployment, Revision, Secret, Source, SourceConfig } from "../../domain/types.js";
import type { SecretBox } from "../../secrets/box.js";
import { SECRET_NAMES, SecretNameCache } from "../../secrets/names.js";
import type { DeploymentsTable, RevisionsTable } from "./schema.js";

/** The secrets of a record read from a row: opened (decrypted) on first read of `.secrets`. */
interface LazySecrets {
  get(): Secret[];
  set(value: Secret[]): void;
  names(): string[];
}

/**
 * Row ↔ record conversion; secrets are sealed on the way in and opened on the way out — lazily:
 * a record's `secrets` is decrypted on first access, and its names (all a response shows, masked)
 * come from a cache of names per sealed text, so reads that only mask never decrypt (see
 * docs/decisions.md, "Lazy secret opening").
 */
export class RowCodec {
  private readonly names = new SecretNameCache();

  constructor(private readonly box: SecretBox) {}

  sealSecrets(secrets: Secret[]): string {
    return this.box.seal(JSON.stringify(secrets));
  }

  openSecrets(sealed: string): Secret[] {
    return JSON.parse(this.box.open(sealed)) as Secret[];
  }

  private lazySecrets(sealed: string): LazySecrets {
    let opened: Secret[] | undefined;
    const get = () => {
      opened ??= this.openSecrets(sealed);
      return opened;
    };
    return {
      get,
      set: (value) => {
        opened = value;
      },
      names: () => (opened ? opened.map((s) => s.name) : this.names.get(sealed, get)),
    };
  }

  deploymentToRow(d: Deployment): Omit<DeploymentsTable, "seq"> {
    return {
      id: d.id,
      tenant_id: d.tenant_id,
      name: d.name,
      display_name: d.display_name,
      source: d.source,
      source_config: JSON.stringify(d.source_config),
      source_revision_config: JSON.stringify(d.source_revision_config),
      secrets: this.sealSecrets(d.secrets),
      secret_references: JSON.stringify(d.secret_references),
      status: d.status,
      latest_revision_id: d.latest_revision_id,
      active_revision_id: d.active_revision_id,
      image_version: d.image_version,
      delete_tracing_project: d.delete_tracing_project ? 1 : 0,
      vocabulary: d.vocabulary,
      listener_id: d.source_config.listener_id,
      created_at: d.created_at,
      updated_at: d.updated_at,
    };
  }

  deploymentFromRow(row: Selectable<DeploymentsTable>): Deployment {
    return withLazySecrets<Deployment>(this.lazySecrets(row.secrets), {
      id: row.id,
      tenant_id: row.tenant_id,
      name: row.name,
      display_name: row.display_name,
      source: row.source as Source,
      // Rows written before a field existed lack it; the type says every field is present.
      source_config: withDefaults(parseJson<Partial<SourceConfig>>(row.source_config)),
      source_revision_config: parseJson(row.source_revision_config),
      secret_references: parseJson(row.secret_references),
      status: row.status as DeploymentStatus,
      latest_revision_id: row.latest_revision_id,
      active_revision_id: row.active_revision_id,
      image_version: row.image_version,
      delete_tracing_project: row.delete_tracing_project === 1,
      vocabulary: row.vocabulary === "real" ? "real" : "neutral",
      created_at: row.created_at,
      updated_at: row.updated_at,
    });
  }

  revisionToRow(r: Revision): Omit<RevisionsTable, "seq"> {
    return {
      id: r.id,
      deployment_id: r.deployment_id,
      tenant_id: r.tenant_id,
      source: r.source,
      status: r.status,
      source_revision_config: JSON.stringify(r.source_revision_config),
      resource_spec: r.resource_spec === null ? null : JSON.stringify(r.resource_spec),
      install_command: r.install_command,
      build_command: r.build_command,
      secrets: this.sealSecrets(r.secrets),
      secret_references: JSON.stringify(r.secret_references),
      created_at: r.created_at,
      updated_at: r.updated_at,
    };
  }

  revisionFromRow(row: Selectable<RevisionsTable>): Revision {
    return withLazySecrets<Revision>(this.lazySecrets(row.secrets), {
      id: row.id,
      deployment_id: row.deployment_id,
      tenant_id: row.tenant_id,
      source: row.source as Source,
      status: row.status as RevisionStatus,
      source_revision_config: parseJson(row.source_revision_config),
      resource_spec: parseJson(row.resource_spec),
      install_command: row.install_command,
      build_command: row.build_command,
      secret_references: parseJson(row.secret_references),
      created_at: row.created_at,
      updated_at: row.updated_at,
    });
  }
}

/**
 * Gives a record read from a row its `secrets` (opened on first read, assignable) and the
 * non-enumerable names accessor that http/wire.ts uses to mask without opening.
 */
function withLazySecrets<T extends { secrets: Secret[] }>(
  secrets: LazySecrets,
  record: Omit<T, "secrets">,
): T {
  Object.defineProperty(record, "secrets", {
    get: secrets.get,
    set: secrets.set,
    enumerable: true,
    configurable: true,
  });
  Object.defineProperty(record, SECRET_NAMES, { value: secrets.names });
  return record as T;
}

/** Parses a JSON text column (the stores only ever write valid JSON there). */
export function parseJson<T>(text: string | null): T {
  return (text === null ? null : JSON.parse(text)) as T;
}

/** A stored source_config with fields added since it was written set to null. */
function withDefaults(stored: Partial<SourceConfig>): SourceConfig {
  return { ...stored, template_id: stored.template_id ?? null } as SourceConfig;
}
