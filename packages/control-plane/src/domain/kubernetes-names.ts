// The Kubernetes API server's own syntax rules (k8s.io/apimachinery/pkg/util/validation and
// resource.Quantity), so the control plane refuses at create/PATCH what a cluster would refuse at
// apply. Each check returns why a value is refused, or null.

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const CONFIG_MAP_KEY = /^[-._a-zA-Z0-9]+$/;
/** resource.Quantity: a signed decimal number with an optional binary/decimal SI suffix or exponent. */
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;
const SUFFIX: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

/** Labels and annotations this prefix names are Berth's own (selectors, pruning, ownership). */
export const RESERVED_PREFIX = "berth.dev/";

/** A DNS-1123 label: container, volume and namespace names. */
export function dnsLabelProblem(value: string): string | null {
  if (value.length > 63) return "must be no more than 63 characters";
  if (!DNS_LABEL.test(value)) {
    return "must be a DNS-1123 label: lower case letters, digits and '-', starting and ending with a letter or digit";
  }
  return null;
}

/** A DNS-1123 subdomain: service account, secret and claim names. */
export function dnsSubdomainProblem(value: string): string | null {
  if (value.length > 253) return "must be no more than 253 characters";
  if (!DNS_SUBDOMAIN.test(value)) {
    return "must be a DNS-1123 subdomain: lower case letters, digits, '-' and '.', starting and ending with a letter or digit";
  }
  return null;
}

/** A qualified name (`[prefix/]name`): label and annotation keys. */
export function qualifiedNameProblem(key: string): string | null {
  const parts = key.split("/");
  if (parts.length > 2) return "a qualified name has at most one '/'";
  const name = parts.length === 2 ? (parts[1] ?? "") : key;
  if (parts.length === 2) {
    const prefix = parts[0] ?? "";
    if (prefix === "") return "the prefix before '/' must not be empty";
    const problem = dnsSubdomainProblem(prefix);
    if (problem) return `the prefix before '/' ${problem}`;
  }
  if (name === "") return "the name part must not be empty";
  if (name.length > 63) return "the name part must be no more than 63 characters";
  if (!QUALIFIED_NAME_PART.test(name)) {
    return "the name part must consist of letters, digits, '-', '_' or '.', and start and end with a letter or digit";
  }
  return null;
}

/** A label value: empty, or up to 63 letters, digits, '-', '_', '.' starting and ending alphanumeric. */
export function labelValueProblem(value: string): string | null {
  if (value.length > 63) return "must be no more than 63 characters";
  if (!LABEL_VALUE.test(value)) {
    return "must be empty or consist of letters, digits, '-', '_' or '.', and start and end with a letter or digit (no spaces)";
  }
  return null;
}

/** A key of a Secret or ConfigMap (what secretKeyRef.key and items[].key name). */
export function configMapKeyProblem(value: string): string | null {
  if (value.length === 0 || value.length > 253) return "must be 1 to 253 characters";
  if (!CONFIG_MAP_KEY.test(value)) return "must consist of letters, digits, '-', '_' or '.'";
  if (value === "." || value === ".." || value.startsWith(".."))
    return "must not be '.', '..' or start with '..'";
  return null;
}

/** A path inside a volume (items[].path, subPath): relative, without a '..' element. */
export function relativePathProblem(value: string): string | null {
  if (value.startsWith("/")) return "must be a relative path";
  if (value.split("/").includes("..")) return "must not contain '..'";
  return null;
}

/** The value of a quantity ("500m", "1Gi", "1e3"), or null when it is not one. */
export function parseQuantity(value: string): number | null {
  const m = QUANTITY.exec(value);
  if (!m) return null;
  const [, sign, digits, suffix] = m;
  let scale = 1;
  if (suffix) scale = SUFFIX[suffix] ?? 10 ** Number(suffix.slice(1));
  const n = Number(digits) * scale;
  return sign === "-" ? -n : n;
}

/** A non-negative quantity. */
export function quantityProblem(value: string): string | null {
  const n = parseQuantity(value);
  if (n === null) return "must be a Kubernetes quantity such as 500m, 1, 256Mi or 1Gi";
  if (n < 0) return "must not be negative";
  return null;
}
