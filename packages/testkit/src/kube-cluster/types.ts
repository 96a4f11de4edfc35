// What a test sees of the Kubernetes control plane it starts (startKubeCluster).

/** A Kubernetes object as kubectl prints it. */
export type KubeObjectJson = {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
    ownerReferences?: Array<{ kind: string; name: string }>;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [field: string]: unknown;
};

/** What a test chooses about the cluster it starts. */
export interface KubeClusterOptions {
  /** Namespaces to create once the API answers. */
  namespaces?: string[];
  /** Pod Security Standard enforced on those namespaces (`pod-security.kubernetes.io/enforce`). */
  podSecurity?: "privileged" | "baseline" | "restricted";
  /** Nodes kwok runs (default 1). */
  nodes?: number;
  /**
   * What every container "printed": kwok serves it for `kubectl logs` (current and `--previous`),
   * as a kubelet would serve a real container's output. No container runs here.
   */
  containerLog?: string;
  /** Kept after stop (for looking at the components' logs); default: removed. */
  keepDir?: boolean;
}

/** A running test control plane: etcd, kube-apiserver, kube-controller-manager and kwok. */
export interface KubeCluster {
  /** https://127.0.0.1:<port> */
  server: string;
  /** A kubeconfig file for the admin (system:masters, bearer token). */
  kubeconfig: string;
  /** The admin's bearer token. */
  token: string;
  /** Where the programs are (kubectl included). */
  binDir: string;
  /** The temporary directory holding certificates, data and the components' logs. */
  dir: string;
  /** Runs kubectl as the admin (or with `kubeconfig`); never throws for a non-zero exit. */
  kubectl(
    args: string[],
    options?: { input?: string; kubeconfig?: string },
  ): Promise<{ code: number; stdout: string; stderr: string }>;
  /** One object, or undefined when it does not exist. */
  get(kind: string, namespace: string | undefined, name: string): Promise<KubeObjectJson | undefined>;
  /** Objects of a kind in a namespace (undefined: all), optionally by label selector. */
  list(kind: string, namespace: string | undefined, selector?: string): Promise<KubeObjectJson[]>;
  /** Applies YAML or JSON manifests (server-side, as the admin). Throws with kubectl's message. */
  apply(manifest: string): Promise<void>;
  /** A kubeconfig file for another identity (e.g. a service account's token) on this cluster. */
  writeKubeconfig(token: string, file: string): string;
  /** The last lines each component logged (for a failing test's message). */
  logs(lines?: number): string;
  /** Stops every component (SIGTERM, then SIGKILL) by PID and removes the directory. */
  stop(): Promise<void>;
}
