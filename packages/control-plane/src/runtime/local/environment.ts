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

/** What the control plane tells a deployment's agent server about itself. */
export interface AgentSettings {
  /** The deployment's stable agent URL (run metadata names it, not the loopback port). */
  agentUrl: string;
  /** Where traces go by default: the control plane's LangSmith-compatible API; null: tracing off. */
  tracing: { endpoint: string; apiKey: string } | null;
}

/** Secrets that mean "my traces go to my own LangSmith": then Berth sets no endpoint or key. */
const OWN_TRACING = ["LANGSMITH_API_KEY", "LANGSMITH_ENDPOINT"];

/**
 * The variables that make an agent trace to Berth (LANGSMITH_TRACING, LANGSMITH_ENDPOINT,
 * LANGSMITH_API_KEY, and how the SDK uploads to it) and name its URL (LANGGRAPH_API_URL), minus
 * what the user's secrets set:
 * theirs win. A secret endpoint or key replaces both of Berth's, so the ingest key never goes
 * to an endpoint the user chose.
 */
export function tracingEnvironment(settings: AgentSettings | null, secrets: Record<string, string>) {
  const env: Record<string, string> = {};
  if (!settings) return env;
  if (secrets.LANGGRAPH_API_URL === undefined) env.LANGGRAPH_API_URL = settings.agentUrl;
  if (!settings.tracing) return env;
  if (secrets.LANGSMITH_TRACING === undefined) env.LANGSMITH_TRACING = "true";
  // Callbacks in the background: a slow trace upload never holds up a run.
  env.LANGCHAIN_CALLBACKS_BACKGROUND = "true";
  if (!OWN_TRACING.some((name) => secrets[name] !== undefined)) {
    env.LANGSMITH_ENDPOINT = settings.tracing.endpoint;
    env.LANGSMITH_API_KEY = settings.tracing.apiKey;
    // One buffered body per batch instead of a chunked stream of ~5 small writes per run part:
    // the streamed upload cost the agent ~15 % of its tracing CPU (a writev per chunk, web-stream
    // and Blob reading per part) and the control plane a wake-up per chunk (docs/decisions.md).
    if (secrets.LANGSMITH_DISABLE_MULTIPART_STREAMING === undefined) {
      env.LANGSMITH_DISABLE_MULTIPART_STREAMING = "true";
    }
  }
  return env;
}

/**
 * The environment of a revision's agent server: the inherited base, the revision's secrets, the
 * tracing defaults the secrets leave open, then the reserved variables (the real service's
 * names), which secrets cannot override.
 */
export function agentEnvironment(
  base: Record<string, string>,
  deployment: Deployment,
  revision: Revision,
  settings: AgentSettings | null = null,
): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const secret of revision.secrets) secrets[secret.name] = secret.value;
  const env: Record<string, string> = { ...base, NODE_ENV: "production", ...secrets };
  return {
    ...env,
    ...tracingEnvironment(settings, secrets),
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
