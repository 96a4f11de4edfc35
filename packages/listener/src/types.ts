/** A Kubernetes object as plain JSON (what server-side apply receives). */
export type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [field: string]: unknown;
};

/** A container as the spec lists it (Kubernetes Container shape, passed through unchanged). */
export type ContainerSpec = { name: string; [field: string]: unknown };

/** The subset of a normalized ResourceSpec the renderer reads (defaults already applied). */
export type ResourceSpec = {
  min_scale: number;
  max_scale: number;
  cpu: number;
  cpu_limit: number | null;
  memory_mb: number;
  memory_limit_mb: number | null;
  queue_min_scale: number | null;
  queue_max_scale: number | null;
  queue_cpu: number | null;
  queue_cpu_limit: number | null;
  queue_memory_mb: number | null;
  queue_memory_limit_mb: number | null;
  cache_cpu: number | null;
  cache_cpu_limit: number | null;
  cache_memory_mb: number | null;
  cache_memory_limit_mb: number | null;
  db_cpu: number | null;
  db_cpu_limit: number | null;
  db_memory_mb: number | null;
  db_memory_limit_mb: number | null;
  db_storage_gi: number | null;
  db_max_connections: number | null;
  labels: Record<string, string> | null;
  annotations: Record<string, string> | null;
  service_account_name: string | null;
  image_pull_secrets: Array<{ name: string }> | null;
  volumes: Array<{ name: string; [field: string]: unknown }> | null;
  volume_mounts: Array<{ name: string; mountPath: string; [field: string]: unknown }> | null;
  init_containers: ContainerSpec[] | null;
  sidecars: ContainerSpec[] | null;
};

/** The desired state of one revision of an external_container deployment, as the listener gets it. */
export type DesiredRevision = {
  deployment_id: string;
  revision_id: string;
  /** Deployment name; objects are named after it (DNS-1123 safe after slugging). */
  name: string;
  namespace: string;
  image_uri: string;
  /** Plain secrets of the deployment (go into a Secret the listener owns). */
  secrets: Array<{ name: string; value: string }>;
  /** Env vars read from existing cluster secrets. */
  secret_references: Array<{ name: string; secret_name: string; secret_key: string }>;
  resource_spec: ResourceSpec;
  /** Password of the deployment's PostgreSQL (generated once by the control plane; kept pure here). */
  database_password: string;
};
