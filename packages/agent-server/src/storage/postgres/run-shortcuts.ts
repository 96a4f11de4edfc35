import { CompiledQuery, type Kysely, type Migration, type Selectable, sql } from "kysely";
import type { RunShortcuts, ShortcutClaimed, ShortcutFinish } from "../sql/run-shortcuts.js";
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

/**
 * `berth_create_run_on_idle_thread` that also checks the rows the run was built from, so an API
 * process may keep them between creates (two round trips per run fewer) and still never create a
 * run from an assistant or a thread config that another process changed: 'stale' when the
 * assistant's version and update time, or the thread's config text, are not what the caller read
 * (nothing written; the caller reads again). The config is checked after the thread's lock, so a
 * config write committed meanwhile is seen. 'not-applied' when they hold but the thread is not idle (or lacks
 * the metadata): the store's transaction then runs with them, as it runs after fresh reads.
 */
const CREATE_RUN_CHECKED = `
create or replace function berth_create_run_checked(
  p_run_id text, p_thread_id text, p_assistant_id text, p_created_at text, p_status text,
  p_metadata text, p_kwargs text, p_strategy text, p_attempt integer, p_available_at bigint,
  p_lease_owner text, p_lease_token text, p_lease_expires_at bigint,
  p_thread_metadata text, p_config text, p_now text,
  p_assistant_version integer, p_assistant_updated_at text, p_check_config boolean, p_expected_config text
) returns text language plpgsql as $$
declare
  current_metadata text;
  current_config text;
begin
  if p_assistant_version is not null and not exists (
    select 1 from assistants where assistant_id = p_assistant_id
      and version = p_assistant_version and updated_at = p_assistant_updated_at
  ) then
    return 'stale';
  end if;
  select metadata, config into current_metadata, current_config from threads
  where thread_id = p_thread_id for update;
  if not found then
    return case when p_check_config then 'stale' else 'not-applied' end;
  end if;
  if p_check_config and current_config is distinct from p_expected_config then return 'stale'; end if;
  if exists (select 1 from runs where thread_id = p_thread_id and status in ('pending', 'running')) then
    return 'not-applied';
  end if;
  -- The thread's metadata must not change (else the store merges it as JSON in code).
  if exists (
    select 1 from jsonb_each(p_thread_metadata::jsonb) wanted
    where (current_metadata::jsonb -> wanted.key) is distinct from wanted.value
  ) then
    return 'not-applied';
  end if;
  insert into runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs,
    multitask_strategy, attempt, available_at, lease_owner, lease_token, lease_expires_at, cancel_action, error)
  values (p_run_id, p_thread_id, p_assistant_id, p_created_at, p_created_at, p_status, p_metadata, p_kwargs,
    p_strategy, p_attempt, p_available_at, p_lease_owner, p_lease_token, p_lease_expires_at, null, null);
  update threads set status = 'busy', updated_at = p_now, config = coalesce(p_config, config)
  where thread_id = p_thread_id;
  return 'created';
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
 * `p` names the values: parameters ($1…) in the store's statement, a function's arguments in
 * berth_finish_run_and_claim. That function is a migration's text: a change here reaches
 * databases only through a new migration that re-creates it.
 */
const claimUpdate = (p: { nowMs: string; owner: string; token: string; expiresAt: string; now: string }) => `
update runs set status = 'running', attempt = attempt + 1, lease_owner = ${p.owner}, lease_token = ${p.token},
  lease_expires_at = ${p.expiresAt}, updated_at = ${p.now}
where run_id = (
  select r.run_id from runs r
  where r.status = 'pending' and r.available_at <= ${p.nowMs}
    and not exists (select 1 from runs a where a.thread_id = r.thread_id and a.status = 'running')
    and not exists (
      select 1 from runs b
      where b.thread_id = r.thread_id and b.seq < r.seq and b.status = 'pending' and b.available_at <= ${p.nowMs}
    )
  order by r.seq limit 1
  for update skip locked
) and status = 'pending'`;

/**
 * The thread's latest root checkpoint as a claim reports it: its run id (the checkpointer's
 * `latestRunId`, same order; its tables share the schema and the search_path), which the worker
 * would otherwise read in a round trip of its own to decide whether the run resumes, and its id
 * and number of pending writes, with which the checkpointer answers the run's first read from
 * what it holds (BerthPostgresSaver.expectLatest). `$thread` is the claimed run's thread.
 */
const latestCheckpointOf = (thread: string) => `
  select c.metadata->>'run_id' as run_id, c.checkpoint_id,
    (select count(*) from checkpoint_writes w
     where w.thread_id = c.thread_id and w.checkpoint_ns = '' and w.checkpoint_id = c.checkpoint_id) as writes
  from checkpoints c where c.thread_id = ${thread} and c.checkpoint_ns = '' order by c.checkpoint_id desc limit 1`;

/** The claim, with its thread's latest checkpoint (read in the claim's snapshot, which saw the previous run end). */
const CLAIM = `with claimed as (${claimUpdate({ nowMs: "$1", owner: "$2", token: "$3", expiresAt: "$4", now: "$5" })}
returning *)
select claimed.*, l.run_id as latest_checkpoint_run_id, l.checkpoint_id as latest_checkpoint_id,
  l.writes as latest_checkpoint_writes
from claimed left join lateral (${latestCheckpointOf("claimed.thread_id")}) l on true`;

/**
 * `berth_finish_run`, then the claim when the finish applied: a run's end refills its worker's
 * slot in one round trip (issue 31). The claim sees the finish (same transaction, a fresh
 * snapshot per statement), so the ended run's thread can hand over to its next run. Another
 * process may claim on the same thread meanwhile (a create's claim, or a claim whose snapshot
 * predates this commit): the one-running-run-per-thread index then refuses this claim, and the
 * block's own subtransaction undoes only the claim. The finish stands and nothing is claimed
 * (the queue claims on its own as the slot frees).
 */
const FINISH_RUN_AND_CLAIM = `
create or replace function berth_finish_run_and_claim(
  p_run_id text, p_token text, p_status text, p_error text, p_values text, p_interrupts text, p_now text,
  p_owner text, p_claim_token text, p_expires_at bigint, p_now_ms bigint, p_claimed_at text
) returns table (applied boolean, claimed runs, latest_checkpoint_run_id text, latest_checkpoint_id text,
  latest_checkpoint_writes bigint) language plpgsql as $$
begin
  applied := berth_finish_run(p_run_id, p_token, p_status, p_error, p_values, p_interrupts, p_now);
  if applied then
    begin
      ${claimUpdate({
        nowMs: "p_now_ms",
        owner: "p_owner",
        token: "p_claim_token",
        expiresAt: "p_expires_at",
        now: "p_claimed_at",
      }).trim()}
      returning * into claimed;
    exception when unique_violation then
      claimed := null;
    end;
    if claimed.run_id is not null then
      select l.run_id, l.checkpoint_id, l.writes
      into latest_checkpoint_run_id, latest_checkpoint_id, latest_checkpoint_writes
      from (${latestCheckpointOf("claimed.thread_id").trim()}) l;
    end if;
  end if;
  return next;
end $$`;

/** The PostgreSQL-only migrations: the functions above. */
export const postgresRunMigrations: Record<string, Migration> = {
  "0102_run_functions": {
    async up(db: Kysely<unknown>) {
      await sql.raw(CREATE_ON_IDLE_THREAD).execute(db);
      await sql.raw(FINISH_RUN).execute(db);
    },
  },
  // 0102's create is left in place: a process of the previous version may still call it.
  "0103_create_run_checked": {
    async up(db: Kysely<unknown>) {
      await sql.raw(CREATE_RUN_CHECKED).execute(db);
    },
  },
  // 0102's finish stays (the new function calls it, and a previous version's process may too).
  "0104_finish_run_and_claim": {
    async up(db: Kysely<unknown>) {
      await sql.raw(FINISH_RUN_AND_CLAIM).execute(db);
    },
  },
};

/** The finish's arguments, in the functions' order. */
const finishArgs = (c: ShortcutFinish) => [
  c.runId,
  c.token,
  c.status,
  c.error,
  c.values,
  c.interrupts,
  c.now,
];

/** A claimed row as the statements return it: the run's columns and its thread's latest checkpoint. */
type ClaimedRow = Selectable<RunsTable> & {
  latest_checkpoint_run_id: string | null;
  latest_checkpoint_id: string | null;
  latest_checkpoint_writes: number | null;
};

function claimedOf(row: ClaimedRow): ShortcutClaimed {
  const { latest_checkpoint_run_id, latest_checkpoint_id, latest_checkpoint_writes, ...run } = row;
  return {
    row: run,
    latestCheckpointRunId: latest_checkpoint_run_id,
    latestCheckpoint:
      latest_checkpoint_id === null
        ? null
        : { id: latest_checkpoint_id, writes: Number(latest_checkpoint_writes) },
  };
}

/** The finish-and-claim's one statement: the claimed run's columns are null when none was claimed. */
const FINISH_AND_CLAIM_CALL = `select f.applied, (f.claimed).*, f.latest_checkpoint_run_id, f.latest_checkpoint_id,
  f.latest_checkpoint_writes
from berth_finish_run_and_claim($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) f`;

/** RunShortcuts over the functions above (the statements' text is fixed: no compile per call). */
export const postgresRunShortcuts: RunShortcuts = {
  async createOnIdleThread(db, run, threadMetadata, config, now, expected) {
    const result = await db.executeQuery<{ outcome: "created" | "not-applied" | "stale" }>(
      CompiledQuery.raw(
        "select berth_create_run_checked($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20) as outcome",
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
          expected?.assistant.version ?? null,
          expected?.assistant.updated_at ?? null,
          expected?.threadConfigJson !== undefined,
          expected?.threadConfigJson ?? null,
        ],
      ),
    );
    return result.rows[0]?.outcome ?? "not-applied";
  },
  async finish(db, c) {
    const result = await db.executeQuery<{ applied: boolean }>(
      CompiledQuery.raw("select berth_finish_run($1, $2, $3, $4, $5, $6, $7) as applied", finishArgs(c)),
    );
    return result.rows[0]?.applied === true;
  },
  async claim(db, c) {
    const result = await db.executeQuery<ClaimedRow>(
      CompiledQuery.raw(CLAIM, [c.nowMs, c.owner, c.token, c.expiresAt, c.now]),
    );
    const row = result.rows[0];
    return row ? claimedOf(row) : undefined;
  },
  async finishAndClaim(db, c, claim) {
    const result = await db.executeQuery<ClaimedRow & { applied: boolean }>(
      CompiledQuery.raw(FINISH_AND_CLAIM_CALL, [
        ...finishArgs(c),
        claim.owner,
        claim.token,
        claim.expiresAt,
        claim.nowMs,
        claim.now,
      ]),
    );
    const row = result.rows[0];
    if (!row?.applied) return { applied: false, claimed: undefined };
    const { applied: _, ...claimed } = row;
    // Every column of an unclaimed run is null; a claimed run always has its id.
    return { applied: true, claimed: claimed.run_id === null ? undefined : claimedOf(claimed) };
  },
};
