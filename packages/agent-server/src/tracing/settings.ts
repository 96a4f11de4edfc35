/**
 * Which tracer a run gets, decided once from the environment the graphs see (the process's plus
 * graph.json `env`): none, the agent server's own lean tracer, or LangChain's (the `langsmith`
 * SDK's callback tracer). The lean tracer sends what the SDK's tracer would, for the settings it
 * understands; anything else in the environment that changes how the SDK traces (replicas,
 * sampling, hidden inputs, OpenTelemetry, batching knobs…) leaves tracing to the SDK.
 */

/** Where and as what the lean tracer posts. */
export interface LeanTraceSettings {
  /** The LangSmith API root, without a trailing slash. */
  readonly endpoint: string;
  readonly apiKey: string | null;
  /** X-Tenant-Id (LANGSMITH_WORKSPACE_ID), for keys that span workspaces. */
  readonly workspaceId: string | null;
  /** The project (session) runs go to. */
  readonly project: string;
  /** What the SDK adds to every run's metadata from the environment (LANGSMITH_* / LANGCHAIN_* variables). */
  readonly envMetadata: Readonly<Record<string, string>>;
  /** What the SDK adds as `extra.runtime` beside the library's own block (release SHAs). */
  readonly releaseShas: Readonly<Record<string, string>>;
}

export type TracerChoice =
  | { readonly kind: "off" }
  | { readonly kind: "sdk"; readonly reason: string }
  | { readonly kind: "lean"; readonly settings: LeanTraceSettings };

const TRACING_SWITCHES = [
  "LANGSMITH_TRACING_V2",
  "LANGCHAIN_TRACING_V2",
  "LANGSMITH_TRACING",
  "LANGCHAIN_TRACING",
];

/**
 * LANGSMITH_* / LANGCHAIN_* variables the lean tracer honours: the switches, where and as what to
 * send, and variables the SDK only copies into metadata (the control plane's deployment facts).
 * Any other one makes the SDK trace.
 */
const HONOURED = new Set([
  ...TRACING_SWITCHES,
  "LANGSMITH_ENDPOINT",
  "LANGCHAIN_ENDPOINT",
  "LANGSMITH_API_KEY",
  "LANGCHAIN_API_KEY",
  "LANGSMITH_PROJECT",
  "LANGCHAIN_PROJECT",
  "LANGCHAIN_SESSION",
  "LANGSMITH_WORKSPACE_ID",
  "LANGCHAIN_WORKSPACE_ID",
  "LANGSMITH_REVISION_ID",
  "LANGCHAIN_REVISION_ID",
  // How the SDK schedules callbacks and uploads: nothing the lean tracer's output depends on.
  "LANGCHAIN_CALLBACKS_BACKGROUND",
  "LANGSMITH_DISABLE_MULTIPART_STREAMING",
  "LANGCHAIN_VERBOSE",
  // Set by the control plane for a deployment; the SDK copies them into metadata, so does Berth.
  "LANGSMITH_TENANT_ID",
  "LANGSMITH_HOST_PROJECT_ID",
  "LANGSMITH_HOST_PROJECT_NAME",
  "LANGSMITH_HOST_REVISION_ID",
  "LANGSMITH_DEPLOYMENT_NAME",
  "LANGSMITH_LANGGRAPH_GIT_REF",
  "LANGSMITH_LANGGRAPH_GIT_REF_SHA",
]);

/** Variables the SDK never copies into metadata (where to send, the project, the switch). */
const NOT_METADATA = new Set([
  "LANGCHAIN_API_KEY",
  "LANGCHAIN_ENDPOINT",
  "LANGCHAIN_TRACING_V2",
  "LANGCHAIN_PROJECT",
  "LANGCHAIN_SESSION",
  "LANGSMITH_API_KEY",
  "LANGSMITH_ENDPOINT",
  "LANGSMITH_TRACING_V2",
  "LANGSMITH_CONFIG_FILE",
  "LANGSMITH_PROJECT",
  "LANGSMITH_SESSION",
  "LANGSMITH_AGENT_ID",
  "LANGSMITH_AGENT_ENVIRONMENT",
]);
/** Names the SDK treats as secret or personal (case-insensitive substrings): never metadata. */
const SENSITIVE = ["key", "secret", "token", "password", "passwd", "pwd", "credential", "email"];

/** Release variables the SDK reports in `extra.runtime` (langsmith's getShas). */
const RELEASE_SHAS = [
  "VERCEL_GIT_COMMIT_SHA",
  "NEXT_PUBLIC_VERCEL_GIT_COMMIT_SHA",
  "COMMIT_REF",
  "RENDER_GIT_COMMIT",
  "CI_COMMIT_SHA",
  "CIRCLE_SHA1",
  "CF_PAGES_COMMIT_SHA",
  "REACT_APP_GIT_SHA",
  "SOURCE_VERSION",
  "GITHUB_SHA",
  "TRAVIS_COMMIT",
  "GIT_COMMIT",
  "BUILD_VCS_NUMBER",
  "bamboo_planRepository_revision",
  "Build.SourceVersion",
  "BITBUCKET_COMMIT",
  "DRONE_COMMIT_SHA",
  "SEMAPHORE_GIT_SHA",
  "BUILDKITE_COMMIT",
];

type Env = Readonly<Record<string, string | undefined>>;

function first(env: Env, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== "") return value;
  }
  return undefined;
}

/** The run metadata the SDK derives from the environment (getLangSmithEnvVarsMetadata's rules). */
function envMetadata(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined || !(key.startsWith("LANGCHAIN_") || key.startsWith("LANGSMITH_"))) continue;
    if (NOT_METADATA.has(key) || SENSITIVE.some((part) => key.toLowerCase().includes(part))) continue;
    if (key === "LANGSMITH_REVISION_ID" || key === "LANGCHAIN_REVISION_ID") continue;
    out[key] = value;
  }
  const revision = first(env, "LANGSMITH_REVISION_ID", "LANGCHAIN_REVISION_ID");
  if (revision) out.revision_id = revision;
  return out;
}

/**
 * The tracer for this process. BERTH_TRACER=sdk keeps LangChain's own tracer (a comparison, or a
 * way out should the lean tracer miss something a project relies on).
 */
export function chooseTracer(env: Env): TracerChoice {
  if (!TRACING_SWITCHES.some((name) => env[name]?.trim().toLowerCase() === "true")) return { kind: "off" };
  if (env.BERTH_TRACER?.trim().toLowerCase() === "sdk") return { kind: "sdk", reason: "BERTH_TRACER=sdk" };
  const unknown = Object.keys(env)
    .filter(
      (key) =>
        (key.startsWith("LANGSMITH_") || key.startsWith("LANGCHAIN_")) &&
        // Empty is unset, as the SDK reads most of them.
        (env[key] ?? "") !== "" &&
        !HONOURED.has(key),
    )
    .sort();
  if (unknown.length > 0) return { kind: "sdk", reason: `${unknown.join(", ")} set` };
  const releaseShas: Record<string, string> = {};
  for (const name of RELEASE_SHAS) {
    const value = env[name];
    if (value !== undefined) releaseShas[name] = value;
  }
  return {
    kind: "lean",
    settings: {
      endpoint: (first(env, "LANGSMITH_ENDPOINT", "LANGCHAIN_ENDPOINT") ?? "https://api.smith.langchain.com")
        .trim()
        .replace(/\/+$/, ""),
      apiKey: first(env, "LANGSMITH_API_KEY", "LANGCHAIN_API_KEY")?.trim() ?? null,
      workspaceId: first(env, "LANGSMITH_WORKSPACE_ID", "LANGCHAIN_WORKSPACE_ID")?.trim() ?? null,
      project: first(env, "LANGSMITH_PROJECT", "LANGCHAIN_PROJECT") ?? env.LANGCHAIN_SESSION ?? "default",
      envMetadata: envMetadata(env),
      releaseShas,
    },
  };
}
