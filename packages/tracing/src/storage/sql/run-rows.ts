import type { Selectable } from "kysely";
import type { RunWrite, TraceRun } from "../../domain/tracing.js";
import type { TracingRunsTable } from "./schema.js";

/**
 * The writes split so that no statement holds one run twice (an upsert may touch a row once):
 * two writers' writes of one run id go to successive statements, in the order given.
 */
export function distinctRounds(runs: RunWrite[]): RunWrite[][] {
  const rounds: Array<{ runs: RunWrite[]; keys: Set<string> }> = [];
  for (const run of runs) {
    const key = `${run.tenant_id}\u0000${run.id}`;
    let round = rounds.find((r) => !r.keys.has(key));
    if (!round) {
      round = { runs: [], keys: new Set() };
      rounds.push(round);
    }
    round.runs.push(run);
    round.keys.add(key);
  }
  return rounds.map((r) => r.runs);
}

export function rowOf(run: RunWrite, now: number) {
  return {
    tenant_id: run.tenant_id,
    id: run.id,
    project_id: run.project_id ?? null,
    trace_id: run.trace_id ?? null,
    parent_run_id: run.parent_run_id ?? null,
    dotted_order: run.dotted_order ?? null,
    name: run.name ?? null,
    run_type: run.run_type ?? null,
    start_ms: run.start_ms ?? null,
    end_ms: run.end_ms ?? null,
    error: run.error ?? null,
    inputs: run.inputs ?? null,
    outputs: run.outputs ?? null,
    extra: run.extra ?? null,
    events: run.events ?? null,
    tags: run.tags ?? null,
    prompt_tokens: run.prompt_tokens ?? null,
    completion_tokens: run.completion_tokens ?? null,
    total_tokens: run.total_tokens ?? null,
    thread_id: run.thread_id ?? null,
    agent_run_id: run.agent_run_id ?? null,
    graph_id: run.graph_id ?? null,
    model_name: run.model_name ?? null,
    reference_example_id: run.reference_example_id ?? null,
    writer_deployment_id: run.writer_deployment_id ?? null,
    size_bytes: run.size_bytes,
    received_ms: now,
  };
}

/** A JSON text column read back (null when absent or unreadable). */
export function parseJsonText(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function runOf(row: Selectable<TracingRunsTable>): TraceRun {
  const tags = parseJsonText(row.tags);
  const events = parseJsonText(row.events);
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    project_id: row.project_id,
    trace_id: row.trace_id,
    parent_run_id: row.parent_run_id,
    dotted_order: row.dotted_order,
    name: row.name,
    run_type: row.run_type,
    start_ms: row.start_ms === null ? null : Number(row.start_ms),
    end_ms: row.end_ms === null ? null : Number(row.end_ms),
    error: row.error,
    inputs: parseJsonText(row.inputs),
    outputs: parseJsonText(row.outputs),
    extra: parseJsonText(row.extra),
    events: Array.isArray(events) ? events : [],
    tags: Array.isArray(tags) ? (tags as string[]) : [],
    prompt_tokens: row.prompt_tokens === null ? null : Number(row.prompt_tokens),
    completion_tokens: row.completion_tokens === null ? null : Number(row.completion_tokens),
    total_tokens: row.total_tokens === null ? null : Number(row.total_tokens),
    thread_id: row.thread_id,
    agent_run_id: row.agent_run_id,
    graph_id: row.graph_id,
    model_name: row.model_name,
    reference_example_id: row.reference_example_id,
  };
}
