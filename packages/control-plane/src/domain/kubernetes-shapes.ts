// The Kubernetes shapes resource_spec passes to the cluster as given (volume sources, env sources,
// security contexts), field by field from the core/v1 API types. Server-side apply refuses an
// unknown field anywhere in an object, so an unknown field here is refused too, not dropped.
import { configMapKeyProblem, quantityProblem, relativePathProblem } from "./kubernetes-names.js";

/** What a field holds. */
export type Rule =
  | "string"
  | "boolean"
  | "int"
  | "quantity"
  | "stringMap"
  | { readonly array: Rule }
  | { readonly object: Shape; readonly oneOf?: readonly string[] };

/** Fields of an object; a field in `required` must be present and non-empty. */
export type Shape = {
  readonly fields: Readonly<Record<string, Rule>>;
  readonly required?: readonly string[];
};

/** Where a problem is and what it is (type: pydantic's names where one fits). */
export type ShapeIssue = { path: Array<string | number>; msg: string; type: string };

const obj = (fields: Record<string, Rule>, required: string[] = [], oneOf?: string[]): Rule => ({
  object: { fields, required },
  ...(oneOf ? { oneOf } : {}),
});

const KeyToPath = obj({ key: "string", path: "string", mode: "int" }, ["key", "path"]);
const Items = { array: KeyToPath } as const;
const LocalRef = obj({ name: "string", optional: "boolean" });
const KeyRef = obj({ name: "string", key: "string", optional: "boolean" }, ["key"]);
const FieldRef = obj({ apiVersion: "string", fieldPath: "string" }, ["fieldPath"]);
const ResourceFieldRef = obj({ containerName: "string", resource: "string", divisor: "quantity" }, [
  "resource",
]);
const DownwardItems = {
  array: obj(
    { path: "string", fieldRef: FieldRef, resourceFieldRef: ResourceFieldRef, mode: "int" },
    ["path"],
    ["fieldRef", "resourceFieldRef"],
  ),
} as const;

/** The volume sources the spec's Volume lists (the API's names; each exactly as core/v1 has it). */
export const VOLUME_SOURCES: Readonly<Record<string, Rule>> = {
  configMap: obj({ name: "string", items: Items, defaultMode: "int", optional: "boolean" }, ["name"]),
  secret: obj({ secretName: "string", items: Items, defaultMode: "int", optional: "boolean" }, [
    "secretName",
  ]),
  emptyDir: obj({ medium: "string", sizeLimit: "quantity" }),
  persistentVolumeClaim: obj({ claimName: "string", readOnly: "boolean" }, ["claimName"]),
  nfs: obj({ server: "string", path: "string", readOnly: "boolean" }, ["server", "path"]),
  projected: obj({
    sources: {
      array: obj(
        {
          configMap: obj({ name: "string", items: Items, optional: "boolean" }, ["name"]),
          secret: obj({ name: "string", items: Items, optional: "boolean" }, ["name"]),
          downwardAPI: obj({ items: DownwardItems }),
          serviceAccountToken: obj({ audience: "string", expirationSeconds: "int", path: "string" }, [
            "path",
          ]),
        },
        [],
        ["configMap", "secret", "downwardAPI", "serviceAccountToken"],
      ),
    },
    defaultMode: "int",
  }),
  downwardAPI: obj({ items: DownwardItems, defaultMode: "int" }),
  csi: obj(
    {
      driver: "string",
      readOnly: "boolean",
      fsType: "string",
      volumeAttributes: "stringMap",
      nodePublishSecretRef: obj({ name: "string" }, ["name"]),
    },
    ["driver"],
  ),
};

/** EnvVar.valueFrom: exactly one source. */
export const ENV_VAR_SOURCE = obj(
  { fieldRef: FieldRef, resourceFieldRef: ResourceFieldRef, configMapKeyRef: KeyRef, secretKeyRef: KeyRef },
  [],
  ["fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef"],
);

/** Container.envFrom[]: exactly one of configMapRef/secretRef. */
export const ENV_FROM_SOURCE = obj(
  { prefix: "string", configMapRef: LocalRef, secretRef: LocalRef },
  [],
  ["configMapRef", "secretRef"],
);

const Profile = obj({ type: "string", localhostProfile: "string" }, ["type"]);

/** Container.securityContext. */
export const SECURITY_CONTEXT = obj({
  allowPrivilegeEscalation: "boolean",
  appArmorProfile: Profile,
  capabilities: obj({ add: { array: "string" }, drop: { array: "string" } }),
  privileged: "boolean",
  procMount: "string",
  readOnlyRootFilesystem: "boolean",
  runAsGroup: "int",
  runAsNonRoot: "boolean",
  runAsUser: "int",
  seLinuxOptions: obj({ level: "string", role: "string", type: "string", user: "string" }),
  seccompProfile: Profile,
  windowsOptions: obj({
    gmsaCredentialSpec: "string",
    gmsaCredentialSpecName: "string",
    hostProcess: "boolean",
    runAsUserName: "string",
  }),
});

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Field-level rules the type alone does not carry (modes, paths, keys, enums). */
function fieldRule(key: string, value: unknown): string | null {
  if (
    (key === "mode" || key === "defaultMode") &&
    typeof value === "number" &&
    (value < 0 || value > 0o777)
  ) {
    return "must be a file mode between 0 and 0777 (511)";
  }
  if ((key === "path" || key === "subPath") && typeof value === "string") return relativePathProblem(value);
  if (key === "key" && typeof value === "string") return configMapKeyProblem(value);
  if (key === "expirationSeconds" && typeof value === "number" && (value < 600 || value > 2 ** 32)) {
    return "must be at least 600 seconds (10 minutes)";
  }
  if (key === "medium" && typeof value === "string" && !/^(|Memory|HugePages(-.+)?)$/.test(value)) {
    return "must be '', 'Memory' or 'HugePages[-<size>]'";
  }
  if (key === "procMount" && typeof value === "string" && !["Default", "Unmasked"].includes(value)) {
    return "must be 'Default' or 'Unmasked'";
  }
  return null;
}

/** Checks `value` against `rule`, appending what is wrong (unknown fields, types, required fields). */
export function checkRule(value: unknown, rule: Rule, path: Array<string | number>, out: ShapeIssue[]): void {
  const bad = (msg: string, type: string, at = path): void => {
    out.push({ path: at, msg, type });
  };
  if (rule === "string") {
    if (typeof value !== "string") bad("Input should be a valid string", "string_type");
  } else if (rule === "boolean") {
    if (typeof value !== "boolean") bad("Input should be a valid boolean", "bool_type");
  } else if (rule === "int") {
    if (!Number.isInteger(value)) bad("Input should be a valid integer", "int_type");
  } else if (rule === "quantity") {
    const problem = typeof value === "string" ? quantityProblem(value) : "must be a quantity string";
    if (problem) bad(problem, "value_error");
  } else if (rule === "stringMap") {
    if (!isObject(value) || Object.values(value).some((v) => typeof v !== "string")) {
      bad("Input should be a map of strings", "dict_type");
    }
  } else if ("array" in rule) {
    if (!Array.isArray(value)) {
      bad("Input should be a valid list", "list_type");
      return;
    }
    value.forEach((item, i) => {
      checkRule(item, rule.array, [...path, i], out);
    });
  } else {
    if (!isObject(value)) {
      bad("Input should be a valid object", "dict_type");
      return;
    }
    const { fields, required = [] } = rule.object;
    for (const [key, v] of Object.entries(value)) {
      const sub = fields[key];
      if (!sub) {
        bad(
          `Extra inputs are not permitted (known fields: ${Object.keys(fields).join(", ")})`,
          "extra_forbidden",
          [...path, key],
        );
        continue;
      }
      if (v === null || v === undefined) continue;
      checkRule(v, sub, [...path, key], out);
      const problem = fieldRule(key, v);
      if (problem) bad(problem, "value_error", [...path, key]);
    }
    for (const key of required) {
      if (value[key] === undefined || value[key] === null || value[key] === "") {
        bad("Field required", "missing", [...path, key]);
      }
    }
    if (rule.oneOf) {
      const set = rule.oneOf.filter((k) => value[k] !== undefined && value[k] !== null);
      if (set.length !== 1) {
        bad(`must set exactly one of ${rule.oneOf.join(", ")} (${set.length} set)`, "value_error");
      }
    }
  }
}
