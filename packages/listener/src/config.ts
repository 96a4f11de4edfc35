import type { KubeAccess } from "./client-node-cluster.js";
import { DEFAULT_RENDER_OPTIONS, type RenderOptions } from "./types.js";

/** Everything `berth listener` needs, parsed once and frozen. */
export interface ListenerConfig {
  readonly controlPlaneUrl: string;
  readonly listenerId: string;
  /** The listener's key (BERTH_LISTENER_KEY), shown once when the listener was created. */
  readonly key: string;
  /** Namespaces the listener acts in; empty: any namespace (needs cluster-wide permissions). */
  readonly namespaces: readonly string[];
  readonly kube: KubeAccess;
  /** Poll interval; null: the control plane's (poll_interval_seconds). */
  readonly pollMs: number | null;
  /**
   * The Lease that makes one of several replicas of this listener the only one acting; null:
   * no election (`--no-leader-elect`, for a single replica).
   */
  readonly leaderElection: {
    readonly namespace: string;
    readonly name: string;
    readonly leaseDurationMs: number;
  } | null;
  /** Images and pull secrets of each deployment's in-cluster Postgres and Redis. */
  readonly render: RenderOptions;
}

/** Raw inputs: flags (split by commander) and the environment. */
export interface ListenerConfigInput {
  flags: {
    controlPlane?: string | undefined;
    listenerId?: string | undefined;
    namespace?: string[] | undefined;
    kubeconfig?: string | undefined;
    inCluster?: boolean | undefined;
    pollInterval?: string | undefined;
    /** false with --no-leader-elect. */
    leaderElect?: boolean | undefined;
    leaseNamespace?: string | undefined;
    leaseDuration?: string | undefined;
    postgresImage?: string | undefined;
    redisImage?: string | undefined;
    imagePullSecret?: string[] | undefined;
  };
  /** The namespace of the listener's own pod (the service account's namespace file), when in one. */
  podNamespace?: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A container image reference as Kubernetes takes it: not empty, no whitespace. */
function image(value: string | undefined, fallback: string, what: string): string {
  if (value === undefined) return fallback;
  if (value === "" || /\s/.test(value) || value.startsWith("-")) throw new Error(`Invalid ${what}: ${value}`);
  return value;
}

/** Parses flags and environment into the listener's config; throws a readable Error on bad values. */
export function parseListenerConfig(input: ListenerConfigInput): ListenerConfig {
  const { flags, env } = input;
  const controlPlaneUrl = flags.controlPlane ?? env.BERTH_CONTROL_PLANE_URL;
  if (!controlPlaneUrl || !/^https?:\/\//.test(controlPlaneUrl)) {
    throw new Error("--control-plane (or BERTH_CONTROL_PLANE_URL) must be the control plane's http(s) URL.");
  }
  const listenerId = flags.listenerId ?? env.BERTH_LISTENER_ID;
  if (!listenerId || !UUID.test(listenerId)) {
    throw new Error("--listener-id (or BERTH_LISTENER_ID) must be the listener's id (a UUID).");
  }
  const key = env.BERTH_LISTENER_KEY?.trim();
  if (!key)
    throw new Error("BERTH_LISTENER_KEY must hold the listener's key (shown once when it was created).");
  const namespaces = (
    flags.namespace ?? (env.BERTH_LISTENER_NAMESPACES ? [env.BERTH_LISTENER_NAMESPACES] : [])
  )
    .flatMap((n) => n.split(","))
    .map((n) => n.trim())
    .filter(Boolean);
  for (const n of namespaces)
    if (!DNS_LABEL.test(n) || n.length > 63) throw new Error(`Invalid namespace: ${n}`);
  if (flags.kubeconfig && flags.inCluster)
    throw new Error("Use either --kubeconfig or --in-cluster, not both.");
  const kube: KubeAccess = flags.kubeconfig
    ? { kind: "file", path: flags.kubeconfig }
    : flags.inCluster || (env.KUBERNETES_SERVICE_HOST && !env.KUBECONFIG)
      ? { kind: "in-cluster" }
      : { kind: "default" };
  let pollMs: number | null = null;
  if (flags.pollInterval !== undefined) {
    const seconds = Number(flags.pollInterval);
    if (!Number.isFinite(seconds) || seconds < 0.1 || seconds > 3600) {
      throw new Error(`Invalid --poll-interval: ${flags.pollInterval} (seconds, 0.1 to 3600)`);
    }
    pollMs = Math.round(seconds * 1000);
  }
  let leaderElection: ListenerConfig["leaderElection"] = null;
  if (flags.leaderElect !== false) {
    // The Lease lives beside the listener's pod, else in the first namespace it serves (a
    // listener of every namespace may write anywhere: `default`).
    const namespace =
      flags.leaseNamespace ??
      env.BERTH_LEASE_NAMESPACE ??
      env.POD_NAMESPACE ??
      input.podNamespace ??
      namespaces[0] ??
      "default";
    if (!DNS_LABEL.test(namespace) || namespace.length > 63)
      throw new Error(`Invalid lease namespace: ${namespace}`);
    const seconds = Number(flags.leaseDuration ?? env.BERTH_LEASE_DURATION_SECS ?? 15);
    if (!Number.isFinite(seconds) || seconds < 2 || seconds > 600) {
      throw new Error(`Invalid --lease-duration: ${flags.leaseDuration} (seconds, 2 to 600)`);
    }
    leaderElection = Object.freeze({
      namespace,
      // One Lease per listener id: replicas of one listener elect; other listeners are unaffected.
      name: `berth-listener-${listenerId.toLowerCase()}`,
      leaseDurationMs: Math.round(seconds * 1000),
    });
  }
  const pullSecrets = (
    flags.imagePullSecret ?? (env.BERTH_IMAGE_PULL_SECRETS ? [env.BERTH_IMAGE_PULL_SECRETS] : [])
  )
    .flatMap((n) => n.split(","))
    .map((n) => n.trim())
    .filter(Boolean);
  for (const n of pullSecrets) {
    if (!DNS_SUBDOMAIN.test(n) || n.length > 253) throw new Error(`Invalid --image-pull-secret: ${n}`);
  }
  const render: RenderOptions = Object.freeze({
    postgresImage: image(
      flags.postgresImage ?? env.BERTH_POSTGRES_IMAGE,
      DEFAULT_RENDER_OPTIONS.postgresImage,
      "--postgres-image",
    ),
    redisImage: image(
      flags.redisImage ?? env.BERTH_REDIS_IMAGE,
      DEFAULT_RENDER_OPTIONS.redisImage,
      "--redis-image",
    ),
    imagePullSecrets: Object.freeze([...new Set(pullSecrets)]),
  });
  return Object.freeze({
    render,
    controlPlaneUrl: controlPlaneUrl.replace(/\/+$/, ""),
    listenerId: listenerId.toLowerCase(),
    key,
    namespaces: Object.freeze([...new Set(namespaces)]),
    kube,
    pollMs,
    leaderElection,
  });
}
