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
  /** Deployment name; object names start with a slug of it (names.ts). */
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

/** A revision's status, as the control plane's desired state gives it. */
export type RevisionStatus = "AWAITING_DEPLOY" | "DEPLOYING" | "DEPLOYED" | (string & {});

/** One revision to run, as `GET /v2/listeners/{id}/desired-state` gives it. */
export type DesiredRevisionState = DesiredRevision & { status: RevisionStatus };

/** A deployment the listener keeps in its cluster. */
export type DesiredDeployment = {
  deployment_id: string;
  name: string;
  namespace: string;
  /** The URL the user set (null: the Service's in-cluster URL is reported). */
  custom_url: string | null;
  /** The revision the cluster should run; null: none yet (objects already there are left alone). */
  revision: DesiredRevisionState | null;
};

/** The desired state of every deployment assigned to a listener. */
export type DesiredState = {
  listener_id: string;
  poll_interval_seconds: number;
  deployments: DesiredDeployment[];
};

/** A line for a revision's deploy log. */
export type DeployLogLine = { level: "INFO" | "WARNING" | "ERROR"; message: string; timestamp?: number };

/** The control plane as the listener sees it (the listener-facing API). */
export interface ControlPlanePort {
  desiredState(): Promise<DesiredState>;
  /** Reports a revision's progress; false when the control plane refused the move (409: interrupted, superseded). */
  report(
    deploymentId: string,
    revisionId: string,
    report: { status: "DEPLOYING" | "DEPLOYED" | "DEPLOY_FAILED"; reason?: string; url?: string },
  ): Promise<boolean>;
  appendLogs(deploymentId: string, revisionId: string, lines: DeployLogLine[]): Promise<void>;
}

/**
 * Kinds the listener applies, prunes and deletes (what renderRevision produces). The Postgres
 * PersistentVolumeClaims are not among them: their StatefulSet deletes them with itself
 * (persistentVolumeClaimRetentionPolicy), and the listener only expands them.
 */
export const MANAGED_KINDS = [
  { apiVersion: "v1", kind: "Secret" },
  { apiVersion: "v1", kind: "Service" },
  { apiVersion: "apps/v1", kind: "Deployment" },
  { apiVersion: "apps/v1", kind: "StatefulSet" },
  { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler" },
  { apiVersion: "policy/v1", kind: "PodDisruptionBudget" },
  { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy" },
] as const;

/** How the listener renders what the control plane does not say (its own flags). */
export type RenderOptions = {
  /** Image of each deployment's in-cluster PostgreSQL (runs as UID 999, the official image's `postgres`). */
  postgresImage: string;
  /** Image of each deployment's in-cluster Redis (runs as UID 999, the official image's `redis`). */
  redisImage: string;
  /** Pull secrets of the Postgres and Redis pods (agent pods use resource_spec.image_pull_secrets). */
  imagePullSecrets: readonly string[];
};

/** The official Debian-based images, whose service users are UID 999. */
export const DEFAULT_RENDER_OPTIONS: RenderOptions = Object.freeze({
  postgresImage: "postgres:16",
  redisImage: "redis:7",
  imagePullSecrets: Object.freeze([]),
});

/** The Kubernetes API as the listener uses it (adapter: client-node-cluster.ts). */
export interface ClusterPort {
  /** Server-side apply with field manager `berth` (forced: the listener owns its fields). */
  apply(object: KubeObject): Promise<void>;
  /** Objects of a kind in a namespace (undefined: every namespace) matching a label selector. */
  list(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    labelSelector: string,
  ): Promise<KubeObject[]>;
  /** One object, or undefined when it does not exist. */
  get(apiVersion: string, kind: string, namespace: string, name: string): Promise<KubeObject | undefined>;
  /**
   * Deletes an object; a missing object is fine. Its dependents go with it (`Background`, the
   * default) or stay (`Orphan`: a StatefulSet recreated with a new claim size keeps its pods).
   */
  delete(
    object: Pick<KubeObject, "apiVersion" | "kind" | "metadata">,
    propagation?: "Background" | "Orphan",
  ): Promise<void>;
  /** The last lines a pod's container printed (`previous`: the run before the current one). */
  podLogs(
    namespace: string,
    pod: string,
    container: string,
    tailLines: number,
    previous: boolean,
  ): Promise<string>;
}

/** Where the listener's own log lines go (the CLI passes its pino logger's methods). */
export interface ListenerLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}
