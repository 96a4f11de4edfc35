import { BadRequestError } from "../errors.js";
import type { Secret, SecretReference } from "./types.js";

/** What responses carry instead of a secret's value (still a string, so the schema holds). */
export const SECRET_MASK = "********";

/**
 * Environment variables the platform sets itself in every agent server, so a deployment may not
 * define them (the real service's reserved list, which `langgraph deploy` filters out).
 */
export const RESERVED_SECRET_NAMES: ReadonlySet<string> = new Set([
  "LANGCHAIN_TRACING_V2",
  "LANGSMITH_TRACING_V2",
  "LANGCHAIN_ENDPOINT",
  "LANGCHAIN_PROJECT",
  "LANGSMITH_PROJECT",
  "LANGSMITH_LANGGRAPH_GIT_REPO",
  "LANGGRAPH_GIT_REPO_PATH",
  "LANGCHAIN_API_KEY",
  "LANGSMITH_CONTROL_PLANE_API_KEY",
  "POSTGRES_URI",
  "POSTGRES_PASSWORD",
  "DATABASE_URI",
  "LANGSMITH_LANGGRAPH_GIT_REF",
  "LANGSMITH_LANGGRAPH_GIT_REF_SHA",
  "LANGGRAPH_AUTH_TYPE",
  "LANGSMITH_AUTH_ENDPOINT",
  "LANGSMITH_TENANT_ID",
  "LANGSMITH_AUTH_VERIFY_TENANT_ID",
  "LANGSMITH_HOST_PROJECT_ID",
  "LANGSMITH_HOST_PROJECT_NAME",
  "LANGSMITH_HOST_REVISION_ID",
  "LOG_JSON",
  "LOG_DICT_TRACEBACKS",
  "REDIS_URI",
  "LANGCHAIN_CALLBACKS_BACKGROUND",
  "DD_TRACE_PSYCOPG_ENABLED",
  "DD_TRACE_REDIS_ENABLED",
  "LANGSMITH_DEPLOYMENT_NAME",
  "LANGGRAPH_CLOUD_LICENSE_KEY",
]);

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkEnvNames(names: string[], field: string): void {
  const seen = new Set<string>();
  for (const name of names) {
    if (!ENV_NAME.test(name)) {
      throw new BadRequestError(
        `${field}: "${name}" is not a valid environment variable name (letters, digits, '_'; not starting with a digit).`,
      );
    }
    if (RESERVED_SECRET_NAMES.has(name)) {
      throw new BadRequestError(`${field}: "${name}" is a reserved environment variable and cannot be set.`);
    }
    if (seen.has(name)) throw new BadRequestError(`${field}: "${name}" is given twice.`);
    seen.add(name);
  }
}

/** Secret and secret-reference names: valid, unreserved and unique across both lists. Never echoes a value. */
export function checkSecretNames(secrets: Secret[], references: SecretReference[]): void {
  checkEnvNames(
    secrets.map((s) => s.name),
    "secrets",
  );
  checkEnvNames(
    references.map((r) => r.name),
    "secret_references",
  );
  const secretNames = new Set(secrets.map((s) => s.name));
  const both = references.find((r) => secretNames.has(r.name));
  if (both) throw new BadRequestError(`"${both.name}" is both a secret and a secret reference.`);
  // An environment variable cannot hold NUL: the agent server could never start with it (and the
  // spawn error would carry the value). Refused here, the value never echoed.
  const unusable = secrets.find((s) => s.value.includes("\u0000"));
  if (unusable) {
    throw new BadRequestError(
      `secrets: the value of "${unusable.name}" contains a NUL character, which an environment variable cannot hold.`,
    );
  }
}

/**
 * Resolves a sent list against the stored one: a value equal to the mask keeps the stored value
 * of that name (clients read back masked secrets and send them again). A mask for a name that has
 * no stored value is a 400, never stored as a value.
 */
export function resolveMaskedSecrets(sent: Secret[], stored: Secret[]): Secret[] {
  const byName = new Map(stored.map((s) => [s.name, s.value]));
  return sent.map((secret) => {
    if (secret.value !== SECRET_MASK) return { name: secret.name, value: secret.value };
    const kept = byName.get(secret.name);
    if (kept === undefined) {
      throw new BadRequestError(
        `secrets: "${secret.name}" has the masked value but no stored value to keep.`,
      );
    }
    return { name: secret.name, value: kept };
  });
}

/** The response form of secrets: names with the mask. */
export function maskSecrets(secrets: Secret[]): Secret[] {
  return secrets.map((s) => ({ name: s.name, value: SECRET_MASK }));
}
