/** A tracing project: where runs are sent (by name or id); a deployment's own when it has one. */
export interface TracingProject {
  id: string;
  tenant_id: string;
  name: string;
  /** The deployment this project was made for (null: made by traces or by hand). */
  deployment_id: string | null;
  created_at: string;
  /** What the SDK's createProject/updateProject set (absent: never set). */
  description?: string | null | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  /** An experiment's dataset. */
  reference_dataset_id?: string | null | undefined;
  end_ms?: number | null | undefined;
}
