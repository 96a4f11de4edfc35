import { CompiledQuery, type Kysely, type Migration, type Selectable, sql } from "kysely";
import type { RunShortcuts } from "../sql/run-shortcuts.js";
import type { RunsTable } from "../sql/schema.js";

/**
 * The run path's common cases as PostgreSQL functions, one round trip each instead of a
 * transaction's five or six (BEGIN, the thread's lock, reads, writes, COMMIT; docs/decisions.md,
 * issue 31). A PL/pgSQL function is VOLATILE: each statement in it takes a fresh snapshot (READ
 * COMMITTED), so a read after the thread's lock sees what the lock waited for, exactly as the
 * next statement of the store's transaction does. A single statement with CTEs could not promise
 * that (one snapshot for all its parts). Tables are found through the session's search_path, as
 * every other statement of the store finds them.
 */
const CREATE_ON_IDLE_THREAD = `
create or replace function berth_create_run_on_idle_thread(
  p_run_id text, p_thread_id text, p_assistant_id text, p_created_at text, p_status text,
  p_metadata text, p_kwargs text, p_strategy text, p_attempt integer, p_available_at bigint,
  p_lease_owner text, p_lease_token text, p_lease_expires_at bigint,
  p_thread_metadata text, p_config text, p_now text
) returns boolean language plpgsql as $$
declare
  current_metadata text;
begin
  select metadata into current_metadata from threads where thread_id = p_thread_id for update;
  if not found then return false; end if;
  if exists (select 1 from runs where thread_id = p_thread_id and status in ('pending', 'running')) then
    return false;
  end if;
  -- The thread's metadata must not change (else the store merges it as JSON in code).
  if exists (
    select 1 from jsonb_each(p_thread_metadata::jsonb) wanted
    where (current_metadata::jsonb -> wanted.key) is distinct from wanted.value
  ) then
    return false;
  end if;
  insert into runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs,
    multitask_strategy, attempt, available_at, lease_owner, lease_token, lease_expires_at, cancel_action, error)
  values (p_run_id, p_thread_id, p_assistant_id, p_created_at, p_created_at, p_status, p_metadata, p_kwargs,
    p_strategy, p_attempt, p_available_at, p_lease_owner, p_lease_token, p_lease_expires_at, null, null);
  update threads set status = 'busy', updated_at = p_now, config = coalesce(p_config, config)
  where thread_id = p_thread_id;
  return true;
end $$`;

const FINISH_RUN = `
create or replace function berth_finish_run(
  p_run_id text, p_token text, p_status text, p_error text, p_values text, p_interrupts text, p_now text
) returns boolean language plpgsql as $$
declare
  run_thread text;
begin
  select thread_id into run_thread from runs
  where run_id = p_run_id and lease_token = p_token and status = 'running';
  if not found then return false; end if;
  -- The thread first, then its run: every transaction on a thread's runs locks in this order.
  perform 1 from threads where thread_id = run_thread for update;
  if not found then return false; end if;
  update runs set status = p_status, error = p_error, lease_owner = null, lease_token = null,
    lease_expires_at = null, updated_at = p_now
  where run_id = p_run_id and lease_token = p_token and status = 'running';
  if not found then return false; end if;
  update threads set
    status = case when exists (
      select 1 from runs where thread_id = run_thread and status in ('pending', 'running')
    ) then 'busy' else 'idle' end,
    updated_at = p_now, "values" = p_values, interrupts = p_interrupts, state_updated_at = p_now
  where thread_id = run_thread;
  return true;
end $$`;

/**
 * The claim (runStatements' `claimable` then `claim`) in one statement: the row is chosen and
 * locked (SKIP LOCKED) by the scalar subquery, then updated if still pending. Same conditions,
 * literals where the store's statement has them (the partial index and the first-row stop).
 */
const CLAIM = `
update runs set status = 'running', attempt = attempt + 1, lease_owner = $2, lease_token = $3,
  lease_expires_at = $4, updated_at = $5
where run_id = (
  select r.run_id from runs r
  where r.status = 'pending' and r.available_at <= $1
    and not exists (select 1 from runs a where a.thread_id = r.thread_id and a.status = 'running')
    and not exists (
      select 1 from runs b
      where b.thread_id = r.thread_id and b.seq < r.seq and b.status = 'pending' and b.available_at <= $1
    )
  order by r.seq limit 1
  for update skip locked
) and status = 'pending'
returning *`;

/** The PostgreSQL-only migrations: the functions above. */
export const postgresRunMigrations: Record<string, Migration> = {
  "0102_run_functions": {
    async up(db: Kysely<unknown>) {
      await sql.raw(CREATE_ON_IDLE_THREAD).execute(db);
      await sql.raw(FINISH_RUN).execute(db);
    },
  },
};

/** RunShortcuts over the functions above (the statements' text is fixed: no compile per call). */
export const postgresRunShortcuts: RunShortcuts = {
  async createOnIdleThread(db, run, threadMetadata, config, now) {
    const result = await db.executeQuery<{ created: boolean }>(
      CompiledQuery.raw(
        "select berth_create_run_on_idle_thread($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) as created",
        [
          run.run_id,
          run.thread_id,
          run.assistant_id,
          run.created_at,
          run.status,
          run.metadata,
          run.kwargs,
          run.multitask_strategy,
          run.attempt,
          run.available_at,
          run.lease_owner,
          run.lease_token,
          run.lease_expires_at,
          threadMetadata,
          config,
          now,
        ],
      ),
    );
    return result.rows[0]?.created ? "created" : "not-applied";
  },
  async finish(db, c) {
    const result = await db.executeQuery<{ applied: boolean }>(
      CompiledQuery.raw("select berth_finish_run($1, $2, $3, $4, $5, $6, $7) as applied", [
        c.runId,
        c.token,
        c.status,
        c.error,
        c.values,
        c.interrupts,
        c.now,
      ]),
    );
    return result.rows[0]?.applied === true;
  },
  async claim(db, c) {
    const result = await db.executeQuery<Selectable<RunsTable>>(
      CompiledQuery.raw(CLAIM, [c.nowMs, c.owner, c.token, c.expiresAt, c.now]),
    );
    return result.rows[0];
  },
};
