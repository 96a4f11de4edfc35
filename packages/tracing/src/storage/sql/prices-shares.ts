import type { Kysely } from "kysely";
import type { ModelPrice, RunShare } from "../../domain/sdk-types.js";
import type { PriceStore, ShareStore } from "../sdk-types.js";
import type { TracingDb } from "./schema.js";

/** A workspace's model prices on Kysely. */
export class SqlPriceStore implements PriceStore {
  constructor(private readonly db: Kysely<TracingDb>) {}

  async list(tenantId: string): Promise<ModelPrice[]> {
    const rows = await this.db
      .selectFrom("tracing_model_prices")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .orderBy("seq", "desc")
      .limit(1000)
      .execute();
    return rows.map(({ seq: _seq, ...row }) => ({
      ...row,
      prompt_cost: Number(row.prompt_cost),
      completion_cost: Number(row.completion_cost),
    }));
  }

  async put(price: ModelPrice): Promise<void> {
    const row = { ...price, tenant_id: price.tenant_id ?? "" };
    const { tenant_id: _t, id: _i, created_at: _c, ...changes } = row;
    await this.db
      .insertInto("tracing_model_prices")
      .values(row)
      .onConflict((oc) => oc.column("id").doUpdateSet(changes))
      .execute();
  }

  async remove(tenantId: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom("tracing_model_prices")
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}

/** Shared runs' public links on Kysely. */
export class SqlShareStore implements ShareStore {
  constructor(private readonly db: Kysely<TracingDb>) {}

  async share(share: RunShare): Promise<RunShare> {
    await this.db
      .insertInto("tracing_run_shares")
      .values(share)
      .onConflict((oc) => oc.columns(["tenant_id", "run_id"]).doNothing())
      .execute();
    return (await this.ofRun(share.tenant_id, share.run_id)) ?? share;
  }

  async ofRun(tenantId: string, runId: string): Promise<RunShare | undefined> {
    return this.db
      .selectFrom("tracing_run_shares")
      .select(["tenant_id", "run_id", "share_token", "created_at"])
      .where("tenant_id", "=", tenantId)
      .where("run_id", "=", runId)
      .executeTakeFirst();
  }

  async byToken(token: string): Promise<RunShare | undefined> {
    return this.db
      .selectFrom("tracing_run_shares")
      .select(["tenant_id", "run_id", "share_token", "created_at"])
      .where("share_token", "=", token)
      .executeTakeFirst();
  }

  async removeOrphans(): Promise<number> {
    const result = await this.db
      .deleteFrom("tracing_run_shares")
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("tracing_runs as r")
              .select("r.id")
              .whereRef("r.tenant_id", "=", "tracing_run_shares.tenant_id")
              .whereRef("r.id", "=", "tracing_run_shares.run_id"),
          ),
        ),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async unshare(tenantId: string, runId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom("tracing_run_shares")
      .where("tenant_id", "=", tenantId)
      .where("run_id", "=", runId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
