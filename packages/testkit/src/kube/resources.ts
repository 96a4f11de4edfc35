import { Deployment, ReplicaSet, StatefulSet } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { Namespace, Pod, Secret, Service } from "kubernetes-models/v1";

/** One kind of object the simulator serves, with the official schema its objects must satisfy. */
export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames: string[];
  /** The kubernetes-models class: its `validate()` checks an object against the OpenAPI schema. */
  model: new (
    data: never,
  ) => { validate(): void };
}

/** What the simulator knows: the kinds the listener applies, and those its controller makes. */
export const RESOURCE_TYPES: readonly ResourceType[] = [
  {
    group: "",
    version: "v1",
    plural: "namespaces",
    singular: "namespace",
    kind: "Namespace",
    namespaced: false,
    shortNames: ["ns"],
    model: Namespace,
  },
  {
    group: "",
    version: "v1",
    plural: "secrets",
    singular: "secret",
    kind: "Secret",
    namespaced: true,
    shortNames: [],
    model: Secret,
  },
  {
    group: "",
    version: "v1",
    plural: "services",
    singular: "service",
    kind: "Service",
    namespaced: true,
    shortNames: ["svc"],
    model: Service,
  },
  {
    group: "",
    version: "v1",
    plural: "pods",
    singular: "pod",
    kind: "Pod",
    namespaced: true,
    shortNames: ["po"],
    model: Pod,
  },
  {
    group: "apps",
    version: "v1",
    plural: "deployments",
    singular: "deployment",
    kind: "Deployment",
    namespaced: true,
    shortNames: ["deploy"],
    model: Deployment,
  },
  {
    group: "apps",
    version: "v1",
    plural: "statefulsets",
    singular: "statefulset",
    kind: "StatefulSet",
    namespaced: true,
    shortNames: ["sts"],
    model: StatefulSet,
  },
  {
    group: "apps",
    version: "v1",
    plural: "replicasets",
    singular: "replicaset",
    kind: "ReplicaSet",
    namespaced: true,
    shortNames: ["rs"],
    model: ReplicaSet,
  },
  {
    group: "autoscaling",
    version: "v2",
    plural: "horizontalpodautoscalers",
    singular: "horizontalpodautoscaler",
    kind: "HorizontalPodAutoscaler",
    namespaced: true,
    shortNames: ["hpa"],
    model: HorizontalPodAutoscaler,
  },
];

/** `group/version` as objects spell it (`v1` for the core group). */
export function apiVersionOf(type: Pick<ResourceType, "group" | "version">): string {
  return type.group ? `${type.group}/${type.version}` : type.version;
}

/** The type serving `plural` in `group/version`, if any. */
export function typeOf(group: string, version: string, plural: string): ResourceType | undefined {
  return RESOURCE_TYPES.find((t) => t.group === group && t.version === version && t.plural === plural);
}

/** The type of `kind` in `apiVersion`, if any. */
export function typeOfKind(apiVersion: string, kind: string): ResourceType | undefined {
  return RESOURCE_TYPES.find((t) => apiVersionOf(t) === apiVersion && t.kind === kind);
}

/** Discovery documents: `/api`, `/apis`, `/api/v1`, `/apis/<group>/<version>`. */
export function discovery(path: string, serverAddress: string): unknown {
  if (path === "/api") {
    return {
      kind: "APIVersions",
      versions: ["v1"],
      serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
    };
  }
  const groups = [...new Set(RESOURCE_TYPES.filter((t) => t.group).map((t) => `${t.group}/${t.version}`))];
  if (path === "/apis") {
    return {
      kind: "APIGroupList",
      apiVersion: "v1",
      groups: groups.map((gv) => {
        const [name, version] = gv.split("/") as [string, string];
        const v = { groupVersion: gv, version };
        return { name, versions: [v], preferredVersion: v };
      }),
    };
  }
  const match = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(path);
  if (!match) return undefined;
  const group = match[2] ?? "";
  const version = match[1] ?? match[3] ?? "";
  const types = RESOURCE_TYPES.filter((t) => t.group === group && t.version === version);
  if (types.length === 0) return undefined;
  const verbs = ["create", "delete", "deletecollection", "get", "list", "patch", "update"];
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: group ? `${group}/${version}` : version,
    resources: types.flatMap((t) => [
      {
        name: t.plural,
        singularName: t.singular,
        namespaced: t.namespaced,
        kind: t.kind,
        verbs,
        ...(t.shortNames.length ? { shortNames: t.shortNames } : {}),
      },
      ...(t.kind === "Pod"
        ? [{ name: "pods/log", singularName: "", namespaced: true, kind: "Pod", verbs: ["get"] }]
        : []),
      ...(["Deployment", "StatefulSet", "ReplicaSet"].includes(t.kind)
        ? [
            {
              name: `${t.plural}/status`,
              singularName: "",
              namespaced: true,
              kind: t.kind,
              verbs: ["get", "patch", "update"],
            },
          ]
        : []),
    ]),
  };
}
