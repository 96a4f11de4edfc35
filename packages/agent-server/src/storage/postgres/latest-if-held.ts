import type { Checkpoint, CheckpointMetadata } from "@langchain/langgraph-checkpoint";

/** A row of `latestIfHeld`: the official read's columns (null when held) and whether it is held. */
export interface LatestRow {
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  held: boolean;
  checkpoint: (Omit<Checkpoint, "pending_sends" | "channel_values"> & { v: number }) | null;
  metadata: CheckpointMetadata | null;
  channel_values: [Uint8Array, Uint8Array, Uint8Array][] | null;
  pending_writes: [Uint8Array, Uint8Array, Uint8Array, Uint8Array][] | null;
}

/**
 * The official read of a thread namespace's latest checkpoint ($1 thread, $2 namespace), its rows
 * left out when that checkpoint is the one held ($3 its id, $4 its number of pending writes):
 * PostgreSQL then answers with the id and `held` only (see BerthPostgresSaver.getTuple).
 */
export function latestIfHeldSql(tables: { checkpoints: string; blobs: string; writes: string }): string {
  const { checkpoints, blobs, writes } = tables;
  const ofCheckpoint = `cw.thread_id = cp.thread_id and cw.checkpoint_ns = cp.checkpoint_ns
      and cw.checkpoint_id = cp.checkpoint_id`;
  return `select cp.checkpoint_id, cp.parent_checkpoint_id, h.held,
        case when h.held then null else cp.checkpoint end as checkpoint,
        case when h.held then null else cp.metadata end as metadata,
        case when h.held then null else (
          select array_agg(array[bl.channel::bytea, bl.type::bytea, bl.blob])
          from jsonb_each_text(cp.checkpoint -> 'channel_versions')
          inner join ${blobs} bl on bl.thread_id = cp.thread_id and bl.checkpoint_ns = cp.checkpoint_ns
            and bl.channel = jsonb_each_text.key and bl.version = jsonb_each_text.value
        ) end as channel_values,
        case when h.held then null else (
          select array_agg(array[cw.task_id::text::bytea, cw.channel::bytea, cw.type::bytea, cw.blob]
            order by cw.task_id, cw.idx)
          from ${writes} cw where ${ofCheckpoint}
        ) end as pending_writes
      from ${checkpoints} cp
      cross join lateral (
        select cp.checkpoint_id = $3 and (select count(*) from ${writes} cw where ${ofCheckpoint}) = $4::bigint as held
      ) h
      where cp.thread_id = $1 and cp.checkpoint_ns = $2
      order by cp.checkpoint_id desc limit 1`;
}
