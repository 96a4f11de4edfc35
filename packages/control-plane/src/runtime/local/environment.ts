import type { Deployment, Revision } from "../../domain/types.js";

/**
 * Variables of the control plane's own environment that builds and agent servers inherit: what
 * tools need to run (PATH, HOME for the npm cache, locale, proxies, npm settings). Nothing else
 * passes, so the control plane's own secrets (BERTH_SECRETS_KEY, BERTH_API_KEY, DATABASE_URL…)
 * never reach user code.
 */
const INHERITED =
  /^(PATH|HOME|USER|LOGNAME|SHELL|LANG|LANGUAGE|LC_[A-Z]+|TZ|TMPDIR|TERM|HTTPS?_PROXY|NO_PROXY|https?_proxy|no_proxy|NODE_EXTRA_CA_CERTS|[Nn][Pp][Mm]_[Cc][Oo][Nn][Ff][Ii][Gg]_\w+|COREPACK_\w+|YARN_\w+)$/;

/** The inherited part of `processEnv`. */
export function baseEnvironment(
  processEnv: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(processEnv)) {
    if (value !== undefined && INHERITED.test(key)) env[key] = value;
  }
  return env;
}

/**
 * The environment of a revision's agent server: the inherited base, the revision's secrets, then
 * the reserved variables (the real service's names), which secrets cannot override.
 */
export function agentEnvironment(
  base: Record<string, string>,
  deployment: Deployment,
  revision: Revision,
): Record<string, string> {
  const env: Record<string, string> = { ...base, NODE_ENV: "production" };
  for (const secret of revision.secrets) env[secret.name] = secret.value;
  return {
    ...env,
    LANGSMITH_PROJECT: deployment.name,
    LANGSMITH_TENANT_ID: deployment.tenant_id,
    LANGSMITH_HOST_PROJECT_ID: deployment.id,
    LANGSMITH_HOST_PROJECT_NAME: deployment.name,
    LANGSMITH_HOST_REVISION_ID: revision.id,
    LANGSMITH_DEPLOYMENT_NAME: deployment.name,
    ...(revision.source_revision_config.repo_commit_sha
      ? { LANGSMITH_LANGGRAPH_GIT_REF_SHA: revision.source_revision_config.repo_commit_sha }
      : {}),
    ...(revision.source_revision_config.repo_ref
      ? { LANGSMITH_LANGGRAPH_GIT_REF: revision.source_revision_config.repo_ref }
      : {}),
  };
}
