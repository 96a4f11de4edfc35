// What a Kubernetes API server would refuse in a resource_spec, found at create/PATCH time instead
// of at apply: names, labels, annotations, container names, mounts, volume sources, quantities.
// The listener renders the spec into one API and one queue Deployment whose pods both hold the
// main container (`api` or `queue`), every init container and sidecar, the volumes and mounts.
import type { FieldIssue } from "../errors.js";
import {
  configMapKeyProblem,
  dnsSubdomainProblem,
  labelValueProblem,
  parseQuantity,
  qualifiedNameProblem,
  quantityProblem,
  RESERVED_PREFIX,
  relativePathProblem,
} from "./kubernetes-names.js";
import {
  checkRule,
  ENV_FROM_SOURCE,
  ENV_VAR_SOURCE,
  SECURITY_CONTEXT,
  type ShapeIssue,
  VOLUME_SOURCES,
} from "./kubernetes-shapes.js";
import type { ResourceSpec, RevisionInputs } from "./types.js";

/** Names of the containers Berth renders itself in each agent pod. */
const MAIN_CONTAINERS = ["api", "queue"];
/** Labels Berth sets on every object it renders (user labels may not set them). */
const BERTH_LABELS = ["app.kubernetes.io/managed-by"];
/** The API server's limit on the total size of an object's annotations (keys and values). */
const ANNOTATIONS_MAX_BYTES = 256 * 1024;
const CONTAINER_FIELDS = new Set([
  "name",
  "image",
  "imagePullPolicy",
  "command",
  "args",
  "workingDir",
  "env",
  "envFrom",
  "resources",
  "volumeMounts",
  "securityContext",
  "restartPolicy",
]);
const MOUNT_FIELDS = new Set(["name", "mountPath", "subPath", "mountPropagation", "readOnly", "subPathExpr"]);
const STANDARD_RESOURCES = /^(cpu|memory|ephemeral-storage|hugepages-.+)$/;

type Path = Array<string | number>;
type Mount = { name: string; mountPath: string; [field: string]: unknown };
type Container = NonNullable<ResourceSpec["sidecars"]>[number];

/** Every Kubernetes rule `spec` breaks, each with its path inside resource_spec. */
export function kubernetesIssues(spec: ResourceSpec): ShapeIssue[] {
  const out: ShapeIssue[] = [];
  const bad = (path: Path, msg: string, type = "value_error"): void => {
    out.push({ path, msg, type });
  };

  checkMetadataMap(spec.labels, ["labels"], true, bad);
  checkMetadataMap(spec.annotations, ["annotations"], false, bad);
  if (spec.min_scale === 0) {
    bad(
      ["min_scale"],
      "must be at least 1: Berth's Kubernetes runtime does not scale the API to zero (nothing would wake it), so a deployment always serves from at least one pod",
      "greater_than_equal",
    );
  }
  if (spec.queue_min_scale === 0 && spec.min_scale !== 0) {
    bad(
      ["queue_min_scale"],
      "must be at least 1: with no queue worker no run would ever execute",
      "greater_than_equal",
    );
  }
  if (spec.service_account_name) {
    const problem = dnsSubdomainProblem(spec.service_account_name);
    if (problem) bad(["service_account_name"], problem);
  }
  (spec.image_pull_secrets ?? []).forEach((ref, i) => {
    const problem = dnsSubdomainProblem(ref.name);
    if (problem) bad(["image_pull_secrets", i, "name"], problem);
  });

  const volumes = new Set<string>();
  (spec.volumes ?? []).forEach((volume, i) => {
    if (volumes.has(volume.name))
      bad(["volumes", i, "name"], `the volume name "${volume.name}" is used twice`);
    volumes.add(volume.name);
    const sources = Object.keys(volume).filter(
      (k) => k !== "name" && volume[k] !== null && volume[k] !== undefined,
    );
    for (const key of sources) {
      const rule = VOLUME_SOURCES[key];
      if (rule) checkRule(volume[key], rule, ["volumes", i, key], out);
      else
        bad(
          ["volumes", i, key],
          `Extra inputs are not permitted: a volume takes a name and one source of ${Object.keys(VOLUME_SOURCES).join(", ")}`,
          "extra_forbidden",
        );
    }
    if (sources.length !== 1) {
      bad(["volumes", i], `a volume needs exactly one source (${sources.length} given)`);
    }
  });

  checkMounts(spec.volume_mounts ?? [], ["volume_mounts"], volumes, false, bad);

  const names = new Map<string, string>(MAIN_CONTAINERS.map((n) => [n, "Berth's main container"]));
  for (const field of ["init_containers", "sidecars"] as const) {
    (spec[field] ?? []).forEach((container, i) => {
      const at: Path = [field, i];
      const taken = names.get(container.name);
      if (taken) bad([...at, "name"], `the container name "${container.name}" is already used by ${taken}`);
      names.set(container.name, `${field}[${i}]`);
      checkContainer(container, at, volumes, out, bad);
    });
  }
  return out;
}

/** Labels (keys and values) or annotations (keys and total size); Berth's own keys are refused. */
function checkMetadataMap(
  map: Record<string, string> | null,
  at: Path,
  labels: boolean,
  bad: (path: Path, msg: string, type?: string) => void,
): void {
  if (!map) return;
  let bytes = 0;
  for (const [key, value] of Object.entries(map)) {
    // The API server checks annotation keys lower-cased; label keys as they are.
    const problem = qualifiedNameProblem(labels ? key : key.toLowerCase());
    if (problem) bad([...at, key], `the key ${problem}`);
    else if (
      key.startsWith(RESERVED_PREFIX) ||
      key.includes(`.${RESERVED_PREFIX}`) ||
      BERTH_LABELS.includes(key)
    ) {
      bad(
        [...at, key],
        `the key is reserved: Berth sets ${RESERVED_PREFIX}* and ${BERTH_LABELS.join(", ")} itself`,
      );
    }
    if (labels) {
      const valueProblem = labelValueProblem(value);
      if (valueProblem) bad([...at, key], `the value ${valueProblem}`);
    }
    bytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (!labels && bytes > ANNOTATIONS_MAX_BYTES) {
    bad(at, `annotations total ${bytes} bytes; Kubernetes allows ${ANNOTATIONS_MAX_BYTES}`);
  }
}

/** Mounts of one container: known volume, absolute unique mountPath, relative subPath. */
function checkMounts(
  mounts: Mount[],
  at: Path,
  volumes: ReadonlySet<string>,
  privileged: boolean,
  bad: (path: Path, msg: string, type?: string) => void,
): void {
  const paths = new Set<string>();
  mounts.forEach((mount, i) => {
    for (const key of Object.keys(mount)) {
      if (!MOUNT_FIELDS.has(key)) {
        bad(
          [...at, i, key],
          `Extra inputs are not permitted (known fields: ${[...MOUNT_FIELDS].join(", ")})`,
          "extra_forbidden",
        );
      }
    }
    if (!volumes.has(mount.name))
      bad([...at, i, "name"], `no volume named "${mount.name}" in resource_spec.volumes`);
    if (!mount.mountPath.startsWith("/")) bad([...at, i, "mountPath"], "must be an absolute path");
    if (paths.has(mount.mountPath))
      bad([...at, i, "mountPath"], `the path "${mount.mountPath}" is mounted twice in one container`);
    paths.add(mount.mountPath);
    if (typeof mount.subPath === "string" && mount.subPath !== "") {
      const problem = relativePathProblem(mount.subPath);
      if (problem) bad([...at, i, "subPath"], problem);
      if (mount.subPathExpr) bad([...at, i, "subPathExpr"], "subPath and subPathExpr are mutually exclusive");
    }
    if (mount.mountPropagation === "Bidirectional" && !privileged) {
      bad([...at, i, "mountPropagation"], "Bidirectional mount propagation needs a privileged container");
    }
  });
}

function checkContainer(
  c: Container,
  at: Path,
  volumes: ReadonlySet<string>,
  out: ShapeIssue[],
  bad: (path: Path, msg: string, type?: string) => void,
): void {
  for (const key of Object.keys(c)) {
    if (!CONTAINER_FIELDS.has(key)) {
      bad(
        [...at, key],
        `Extra inputs are not permitted (resource_spec containers take: ${[...CONTAINER_FIELDS].join(", ")})`,
        "extra_forbidden",
      );
    }
  }
  if (c.image.trim() !== c.image) bad([...at, "image"], "must not have leading or trailing whitespace");
  // Kubernetes takes restartPolicy on a container only as `Always`, and only on an init container
  // (a native sidecar); the listener renders sidecars with it as such.
  if (c.restartPolicy && c.restartPolicy !== "Always") {
    bad([...at, "restartPolicy"], "only 'Always' is allowed (a native sidecar, Kubernetes 1.29+)", "enum");
  }
  (c.env ?? []).forEach((env, i) => {
    for (const key of Object.keys(env)) {
      if (!["name", "value", "valueFrom"].includes(key)) {
        bad(
          [...at, "env", i, key],
          "Extra inputs are not permitted (known fields: name, value, valueFrom)",
          "extra_forbidden",
        );
      }
    }
    if (env.valueFrom) {
      if (env.value) bad([...at, "env", i, "valueFrom"], "valueFrom cannot be used with a non-empty value");
      checkRule(env.valueFrom, ENV_VAR_SOURCE, [...at, "env", i, "valueFrom"], out);
    }
  });
  (c.envFrom ?? []).forEach((source, i) => {
    checkRule(source, ENV_FROM_SOURCE, [...at, "envFrom", i], out);
  });
  if (c.securityContext) checkRule(c.securityContext, SECURITY_CONTEXT, [...at, "securityContext"], out);
  checkResources(c.resources ?? null, [...at, "resources"], bad);
  checkMounts(
    c.volumeMounts ?? [],
    [...at, "volumeMounts"],
    volumes,
    c.securityContext?.privileged === true,
    bad,
  );
}

/** Resource names and quantities; a request never above its limit; extended resources not overcommitted. */
function checkResources(
  r: { limits?: Record<string, string> | null; requests?: Record<string, string> | null } | null,
  at: Path,
  bad: (path: Path, msg: string, type?: string) => void,
): void {
  if (!r) return;
  for (const part of ["limits", "requests"] as const) {
    for (const [name, value] of Object.entries(r[part] ?? {})) {
      const standard = STANDARD_RESOURCES.test(name);
      const nameProblem = standard ? null : qualifiedNameProblem(name);
      if (nameProblem || (!standard && !name.includes("/"))) {
        bad(
          [...at, part, name],
          "must be cpu, memory, ephemeral-storage, hugepages-<size> or a domain-prefixed extended resource",
        );
      }
      const problem = quantityProblem(value);
      if (problem) bad([...at, part, name], problem);
    }
  }
  for (const [name, request] of Object.entries(r.requests ?? {})) {
    const limit = r.limits?.[name];
    const req = parseQuantity(request);
    const lim = limit === undefined ? null : parseQuantity(limit);
    if (req !== null && lim !== null && req > lim) {
      bad([...at, "requests", name], `must be less than or equal to the ${name} limit (${limit})`);
    }
    if (!STANDARD_RESOURCES.test(name) && (lim === null || req !== lim)) {
      bad(
        [...at, "requests", name],
        "an extended resource cannot be overcommitted: its request must equal its limit",
      );
    }
  }
}

/**
 * Secrets (or secret references) that point a deployment at an external PostgreSQL / Redis (the
 * real service's names): the listener then renders no in-cluster database / Redis for it.
 */
export const EXTERNAL_URI_SECRETS = ["POSTGRES_URI_CUSTOM", "REDIS_URI_CUSTOM"] as const;

/** Secret references name a Secret and a key Kubernetes accepts. */
export function secretReferenceIssues(
  references: ReadonlyArray<{ secret_name: string; secret_key: string }>,
): FieldIssue[] {
  const out: FieldIssue[] = [];
  references.forEach((r, i) => {
    const name = dnsSubdomainProblem(r.secret_name);
    if (name)
      out.push({ loc: ["body", "secret_references", i, "secret_name"], msg: name, type: "value_error" });
    const key = configMapKeyProblem(r.secret_key);
    if (key) out.push({ loc: ["body", "secret_references", i, "secret_key"], msg: key, type: "value_error" });
  });
  return out;
}

type Inputs = Pick<RevisionInputs, "resource_spec" | "secrets" | "secret_references">;
const DEFAULT_STORAGE_GI = 10;

/**
 * What a new revision of a deployment running on a listener may not change, because the cluster
 * cannot follow: the database volume only grows (a claim is expanded, never shrunk), and an
 * external database or Redis stays set for the deployment's life (switching would orphan or drop
 * the in-cluster data).
 */
export function revisionChangeIssues(current: Inputs, next: Inputs): FieldIssue[] {
  const out: FieldIssue[] = [];
  const has = (inputs: Inputs, name: string) =>
    inputs.secrets.some((s) => s.name === name) || inputs.secret_references.some((r) => r.name === name);
  for (const name of EXTERNAL_URI_SECRETS) {
    if (has(current, name) !== has(next, name)) {
      out.push({
        loc: ["body", "secrets"],
        msg: `${name} ${has(current, name) ? "cannot be removed" : "cannot be added"} after creation: an external ${name.startsWith("POSTGRES") ? "database" : "Redis"} stays set for the deployment's life`,
        type: "value_error",
      });
    }
  }
  const before = current.resource_spec ? (current.resource_spec.db_storage_gi ?? DEFAULT_STORAGE_GI) : null;
  const after = next.resource_spec?.db_storage_gi ?? DEFAULT_STORAGE_GI;
  if (before !== null && after < before && !has(next, "POSTGRES_URI_CUSTOM")) {
    out.push({
      loc: ["body", "source_config", "resource_spec", "db_storage_gi"],
      msg: `cannot shrink the database volume from ${before} Gi to ${after} Gi: Kubernetes only expands a PersistentVolumeClaim`,
      type: "greater_than_equal",
    });
  }
  return out;
}
