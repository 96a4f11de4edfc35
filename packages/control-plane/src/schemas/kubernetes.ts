import { z } from "zod";

/** A Kubernetes DNS label (RFC 1123): names of volumes, containers and the like. */
export const DnsLabel = z
  .string()
  .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, "must be a DNS label: lowercase letters, digits and '-'");

/** A C identifier: environment variable names. */
export const CIdentifier = z
  .string()
  .max(256)
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]*$/,
    "must be a C identifier (letters, digits, '_'; not starting with a digit)",
  );

/** Free-form Kubernetes object (volume sources, securityContext, valueFrom…): kept as given. */
export const FreeForm = z.record(z.string(), z.unknown());

const StringMap = z.record(z.string().max(316), z.string().max(4096));

/** `{name}` reference to an image-pull secret in the deployment's namespace. */
export const LocalObjectReference = z.object({ name: z.string().min(1).max(253) });

/**
 * A pod volume. Loose: a field the spec does not list reaches the Kubernetes rules
 * (domain/kubernetes-rules.ts), which refuse it with its path instead of dropping it.
 */
export const Volume = z.looseObject({
  name: DnsLabel,
  configMap: FreeForm.nullish(),
  secret: FreeForm.nullish(),
  emptyDir: FreeForm.nullish(),
  persistentVolumeClaim: FreeForm.nullish(),
  nfs: FreeForm.nullish(),
  projected: FreeForm.nullish(),
  downwardAPI: FreeForm.nullish(),
  csi: FreeForm.nullish(),
});

/** Where a volume is mounted in a container (loose, like Volume). */
export const VolumeMount = z.looseObject({
  name: DnsLabel,
  mountPath: z.string().min(1).max(4096),
  subPath: z.string().max(4096).nullish(),
  mountPropagation: z.enum(["None", "HostToContainer", "Bidirectional"]).nullish(),
  readOnly: z.boolean().nullish(),
  subPathExpr: z.string().max(4096).nullish(),
});

/** An environment variable of an init container or sidecar (loose, like Volume). */
export const EnvVar = z.looseObject({
  name: CIdentifier,
  value: z.string().max(65_536).nullish(),
  valueFrom: FreeForm.nullish(),
});

/** Container resources, as Kubernetes quantities. */
export const ResourceRequirements = z.object({
  limits: StringMap.nullish(),
  requests: StringMap.nullish(),
});

/** An init container or sidecar (loose, like Volume). `command` is an argv, never a shell line. */
export const Container = z.looseObject({
  name: DnsLabel,
  image: z.string().min(1).max(1024),
  imagePullPolicy: z.enum(["Always", "Never", "IfNotPresent"]).nullish(),
  command: z.array(z.string().max(4096)).max(256).nullish(),
  args: z.array(z.string().max(4096)).max(256).nullish(),
  workingDir: z.string().max(4096).nullish(),
  env: z.array(EnvVar).max(256).nullish(),
  envFrom: z.array(FreeForm).max(64).nullish(),
  resources: ResourceRequirements.nullish(),
  volumeMounts: z.array(VolumeMount).max(64).nullish(),
  securityContext: FreeForm.nullish(),
  restartPolicy: z.enum(["Always", "OnFailure"]).nullish(),
});

/** Labels/annotations: bounded maps of strings. */
export const Labels = StringMap.refine((m) => Object.keys(m).length <= 64, "at most 64 entries");
