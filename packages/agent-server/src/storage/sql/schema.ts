import type { Generated } from "kysely";

/** Row shapes of the agent server's tables, the same on SQLite and PostgreSQL (JSON columns hold text). */
export interface AssistantsTable {
  assistant_id: string;
  graph_id: string;
  config: string;
  context: string;
  metadata: string;
  name: string;
  description: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface ThreadsTable {
  thread_id: string;
  created_at: string;
  updated_at: string;
  state_updated_at: string;
  metadata: string;
  status: string;
  config: string;
  values: string | null;
  interrupts: string;
}

export interface RunsTable {
  seq: Generated<number>;
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: string;
  updated_at: string;
  status: string;
  metadata: string;
  kwargs: string;
  multitask_strategy: string;
  attempt: number;
  available_at: number;
  lease_owner: string | null;
  lease_token: string | null;
  lease_expires_at: number | null;
  cancel_action: string | null;
  error: string | null;
}

/** Every version an assistant has had (the current one is also in `assistants`). */
export interface AssistantVersionsTable {
  assistant_id: string;
  version: number;
  graph_id: string;
  config: string;
  context: string;
  metadata: string;
  name: string;
  description: string | null;
  created_at: string;
}

export interface AgentServerDb {
  assistants: AssistantsTable;
  assistant_versions: AssistantVersionsTable;
  threads: ThreadsTable;
  runs: RunsTable;
  store_items: StoreItemsTable;
  crons: CronsTable;
}

/** Long-term memory items; `namespace` is the labels joined with "." (which labels may not contain). */
export interface StoreItemsTable {
  namespace: string;
  key: string;
  value: string;
  created_at: string;
  updated_at: string;
  /** Minutes an item lives after its last write (or refreshing read); null: forever. */
  ttl_minutes: number | null;
  /** Epoch ms after which the item is invisible and swept. */
  expires_at: number | null;
}

/** Scheduled runs; `next_run_at` (epoch ms) is what the scheduler claims. */
export interface CronsTable {
  cron_id: string;
  assistant_id: string;
  thread_id: string | null;
  user_id: string | null;
  schedule: string;
  timezone: string;
  end_time: string | null;
  payload: string;
  metadata: string;
  enabled: number;
  on_run_completed: string | null;
  next_run_at: number | null;
  created_at: string;
  updated_at: string;
}
