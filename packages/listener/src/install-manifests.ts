import { dumpYaml } from "@kubernetes/client-node";
import { LABELS } from "./names.js";
import { type KubeObject, MANAGED_KINDS } from "./types.js";

/** What `berth listener install` is told about the listener to run. */
export interface ListenerInstall {
  listenerId: string;
  controlPlaneUrl: string;
  /** Namespaces its deployments go to: it gets a Role in each, and no rights anywhere else. */
  namespaces: readonly string[];
  /** Where the listener itself runs (its ServiceAccount, Deployment and Lease). */
  namespace: string;
  /** An image whose PATH has the `berth` CLI (e.g. one built by `berth build`). */
  image: string;
  /** Replicas; more than one stand by through the Lease. */
  replicas: number;
  /** The Secret (in `namespace`) holding BERTH_LISTENER_KEY; created by the operator, never printed. */
  keySecret: string;
  imagePullSecrets: readonly string[];
}

const NAME = "berth-listener";

/** Resource name of a kind as RBAC rules name it (the lower-case plural). */
export function resourceOf(kind: string): string {
  const lower = kind.toLowerCase();
  return lower.endsWith("y") ? `${lower.slice(0, -1)}ies` : `${lower}s`;
}

/** The API group of an apiVersion ("" for the core group). */
const groupOf = (apiVersion: string) => (apiVersion.includes("/") ? (apiVersion.split("/")[0] ?? "") : "");

/**
 * RBAC rules for a namespace the listener manages: full control of the kinds it renders (apply
 * is a PATCH that may create), read access to the pods it judges rollouts by and their logs, the
 * growth of its database claims, and nothing else: no other kinds, no cluster-wide rights.
 */
export function managedNamespaceRules(): Array<{
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}> {
  const byGroup = new Map<string, string[]>();
  for (const { apiVersion, kind } of MANAGED_KINDS) {
    const group = groupOf(apiVersion);
    byGroup.set(group, [...(byGroup.get(group) ?? []), resourceOf(kind)]);
  }
  const manage = ["get", "list", "watch", "create", "patch", "update", "delete"];
  return [
    ...[...byGroup.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([group, resources]) => ({
        apiGroups: [group],
        resources: [...new Set(resources)].sort(),
        verbs: manage,
      })),
    { apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch"] },
    { apiGroups: [""], resources: ["pods/log"], verbs: ["get"] },
    // A larger db_storage_gi grows the database's claim in place (takeover.ts); the claims
    // themselves come and go with their StatefulSet.
    { apiGroups: [""], resources: ["persistentvolumeclaims"], verbs: ["get", "patch"] },
  ];
}

/**
 * The objects that run `berth listener` in a cluster with least privilege: a ServiceAccount, a
 * Role + RoleBinding in each managed namespace (the kinds it renders, pods read-only), a Role for
 * its Lease in its own namespace (only that Lease can be updated), and a Deployment whose pods run
 * as non-root under the `restricted` Pod Security Standard. Pure.
 */
export function renderListenerInstall(install: ListenerInstall): KubeObject[] {
  const labels = {
    [LABELS.managedBy]: "berth",
    "app.kubernetes.io/name": NAME,
    [LABELS.listener]: install.listenerId,
  };
  const lease = `berth-listener-${install.listenerId}`;
  const subject = { kind: "ServiceAccount", name: NAME, namespace: install.namespace };
  const objects: KubeObject[] = [
    {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: NAME, namespace: install.namespace, labels },
      automountServiceAccountToken: true,
    },
  ];
  for (const ns of install.namespaces) {
    objects.push(
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "Role",
        metadata: { name: NAME, namespace: ns, labels },
        rules: managedNamespaceRules(),
      },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: NAME, namespace: ns, labels },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: NAME },
        subjects: [subject],
      },
    );
  }
  objects.push(
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: `${NAME}-lease`, namespace: install.namespace, labels },
      rules: [
        // `create` cannot be limited to a name (the object does not exist yet); the rest can.
        { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
        {
          apiGroups: ["coordination.k8s.io"],
          resources: ["leases"],
          resourceNames: [lease],
          verbs: ["get", "update"],
        },
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: `${NAME}-lease`, namespace: install.namespace, labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: `${NAME}-lease` },
      subjects: [subject],
    },
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: NAME, namespace: install.namespace, labels },
      spec: {
        replicas: install.replicas,
        selector: { matchLabels: { "app.kubernetes.io/name": NAME, [LABELS.listener]: install.listenerId } },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: NAME,
            ...(install.imagePullSecrets.length
              ? { imagePullSecrets: install.imagePullSecrets.map((name) => ({ name })) }
              : {}),
            securityContext: {
              runAsNonRoot: true,
              runAsUser: 1000,
              seccompProfile: { type: "RuntimeDefault" },
            },
            containers: [
              {
                name: "listener",
                image: install.image,
                command: [
                  "berth",
                  "listener",
                  "--in-cluster",
                  "--control-plane",
                  install.controlPlaneUrl,
                  "--listener-id",
                  install.listenerId,
                  ...install.namespaces.flatMap((ns) => ["--namespace", ns]),
                  "--log-format",
                  "json",
                ],
                env: [
                  {
                    name: "BERTH_LISTENER_KEY",
                    valueFrom: { secretKeyRef: { name: install.keySecret, key: "BERTH_LISTENER_KEY" } },
                  },
                  { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
                  { name: "POD_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
                ],
                resources: { requests: { cpu: "50m", memory: "128Mi" }, limits: { memory: "512Mi" } },
                securityContext: {
                  allowPrivilegeEscalation: false,
                  readOnlyRootFilesystem: true,
                  capabilities: { drop: ["ALL"] },
                },
                volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
              },
            ],
            volumes: [{ name: "tmp", emptyDir: {} }],
          },
        },
      },
    },
  );
  return objects;
}

/** The install manifests as one multi-document YAML text (what `berth listener install` prints). */
export function listenerInstallYaml(install: ListenerInstall): string {
  return renderListenerInstall(install)
    .map((o) => dumpYaml(o))
    .join("---\n");
}
