import fs from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";
import { type Command, Option } from "commander";
import { resolveTarget } from "../connection-target.js";
import {
  ControlPlaneClient,
  type DeploymentRecord,
  type RevisionRecord,
  type SecretInput,
} from "../control-plane-client.js";
import { elapsed, formatLogLine, lastLogLines, watchRevision } from "../deploy-watch.js";
import { formatBytes, isEnvFile, isExcluded, packProject } from "../pack.js";

/** The control plane `berth up` listens on by default. */
export const DEFAULT_CONTROL_PLANE_URL = "http://127.0.0.1:8124";

/** Deployment names (the control plane's rule): lowercase letters, digits, '-'; a letter first; ≤ 63. */
const NAME = /^[a-z][a-z0-9-]{0,62}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Options of `berth deploy` as commander hands them over. */
interface DeployFlags {
  url?: string;
  apiKey?: string;
  profile?: string;
  name?: string;
  config?: string;
  secret?: string[];
  envFile?: string;
  wait: boolean;
  timeout: string;
}

/** A directory name made into a valid deployment name ("My_Agent 2" → "my-agent-2"). */
export function deploymentNameFrom(text: string): string {
  const name = text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^[^a-z]+/, "")
    .slice(0, 63)
    .replace(/-+$/, "");
  return name || "agent";
}

/** `berth deploy [DIR]`: packs a project, uploads it to the control plane and follows the revision. */
export function registerDeployCommand(program: Command): void {
  program
    .command("deploy")
    .description("Deploy a graph project to a Berth control plane: pack, upload, build, run.")
    .argument("[dir]", "project directory (holds graph.json or langgraph.json)", ".")
    .addOption(
      new Option(
        "--profile <name>",
        "saved control plane to use (berth profile list; default: the current one)",
      ).env("BERTH_PROFILE"),
    )
    .addOption(
      new Option(
        "--url <url>",
        `control plane URL (default: the current profile's, else ${DEFAULT_CONTROL_PLANE_URL})`,
      ).env("BERTH_URL"),
    )
    .addOption(
      new Option("--api-key <key>", "API key of the control plane (default: the one saved for its URL)").env(
        "BERTH_API_KEY",
      ),
    )
    .option("--name <name>", "deployment name (default: the directory name, made valid)")
    .option(
      "-c, --config <path>",
      "graph configuration inside DIR (default: graph.json, else langgraph.json)",
    )
    .option(
      "--secret <NAME=VALUE>",
      "a secret (environment variable of the agent); repeatable",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option("--env-file <file>", "read secrets from a .env file (--secret wins over it)")
    .option("--no-wait", "return once the revision is created instead of following it to DEPLOYED")
    .option("--timeout <secs>", "how long to follow the revision before giving up", "900")
    .addHelpText(
      "after",
      `
The project directory is packed into a .tar.gz without node_modules, .git, dist, .berth and .env
files, nor what its .gitignore files and .dockerignore leave out, uploaded, and deployed as a new revision of the deployment with that name (created on
first deploy). The control plane installs the dependencies (npm ci with a package-lock.json),
starts an agent server and serves it at <url>/agents/<deployment id>, which stays the same from
one deploy to the next. Call it with the same API key.

Secrets: --secret and --env-file (and the env file graph.json names, if any) become environment
variables of the agent. Secrets given replace the deployment's secrets; with none given, the
previous revision's secrets are kept.

Exit status: 0 once the revision is DEPLOYED (or created, with --no-wait); 1 if it fails, is
skipped or interrupted, or the time runs out.

Example:
  export BERTH_API_KEY=<the key berth up printed>
  berth deploy examples/react-agent --name react-agent --secret OPENAI_API_KEY=sk-...`,
    )
    .action(async (dir: string, flags: DeployFlags) => {
      process.exitCode = await runDeploy(dir, flags);
    });
}

/** The project to upload: its directory, its graph configuration and what that names. */
interface Project {
  dir: string;
  configPath: string;
  graphs: string[];
  /** The env file graph.json names, when it is one berth deploy does not upload. */
  configEnvFile: string | null;
}

function readProject(dirArg: string, configArg: string | undefined): Project {
  const dir = path.resolve(dirArg);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new Error(`${dirArg} is not a directory.`);
  }
  const candidates = configArg ? [configArg] : ["graph.json", "langgraph.json"];
  const found = candidates.find((c) => fs.existsSync(path.resolve(dir, c)));
  if (!found) {
    throw new Error(
      configArg
        ? `${configArg} does not exist in ${dir}.`
        : `${dir} has no graph.json or langgraph.json (pass --config path/inside/dir.json).`,
    );
  }
  const configPath = path.relative(dir, path.resolve(dir, found)).split(path.sep).join("/");
  if (configPath.startsWith("../") || path.isAbsolute(configPath)) {
    throw new Error(`--config must name a file inside ${dir}.`);
  }
  if (isExcluded(configPath))
    throw new Error(`${configPath} is in a directory berth deploy does not upload.`);
  let json: { graphs?: unknown; env?: unknown };
  try {
    json = JSON.parse(fs.readFileSync(path.join(dir, configPath), "utf8")) as typeof json;
  } catch (error) {
    throw new Error(`${configPath} is not valid JSON (${(error as Error).message}).`);
  }
  if (!json.graphs || typeof json.graphs !== "object" || Object.keys(json.graphs).length === 0) {
    throw new Error(`${configPath} names no graphs ("graphs": {"<id>": "./src/file.ts:export"}).`);
  }
  let configEnvFile: string | null = null;
  if (typeof json.env === "string") {
    const envPath = path.resolve(dir, path.dirname(configPath), json.env);
    if (isEnvFile(path.basename(envPath)) && fs.existsSync(envPath)) configEnvFile = envPath;
  }
  return { dir, configPath, graphs: Object.keys(json.graphs), configEnvFile };
}

function parseSecretFlag(text: string): SecretInput {
  const eq = text.indexOf("=");
  const name = eq > 0 ? text.slice(0, eq) : "";
  if (!ENV_NAME.test(name)) {
    throw new Error(`--secret ${text}: expected NAME=VALUE with NAME made of letters, digits and '_'.`);
  }
  return { name, value: text.slice(eq + 1) };
}

function readEnvFile(file: string): Record<string, string> {
  if (!fs.existsSync(file)) throw new Error(`The env file ${file} does not exist.`);
  return parseEnv(fs.readFileSync(file, "utf8")) as Record<string, string>;
}

/** Secrets from graph.json's env file, --env-file, then --secret (later ones win); undefined: none given. */
function collectSecrets(project: Project, flags: DeployFlags, print: (line: string) => void) {
  const merged = new Map<string, string>();
  if (project.configEnvFile) {
    const values = readEnvFile(project.configEnvFile);
    for (const [k, v] of Object.entries(values)) merged.set(k, v);
    print(
      `Secrets: ${Object.keys(values).length} from ${path.relative(process.cwd(), project.configEnvFile) || project.configEnvFile} (named by ${project.configPath}; not uploaded)`,
    );
  }
  if (flags.envFile) {
    for (const [k, v] of Object.entries(readEnvFile(flags.envFile))) merged.set(k, v);
  }
  for (const text of flags.secret ?? []) {
    const secret = parseSecretFlag(text);
    merged.set(secret.name, secret.value);
  }
  if (merged.size === 0) return undefined;
  return [...merged].map(([name, value]) => ({ name, value }));
}

async function runDeploy(dirArg: string, flags: DeployFlags): Promise<number> {
  const print = (line: string) => process.stdout.write(`${line}\n`);
  // Resolved first: a missing key is reported before any packing.
  const target = resolveTarget(flags, DEFAULT_CONTROL_PLANE_URL);
  const timeoutSecs = Number(flags.timeout);
  if (!Number.isFinite(timeoutSecs) || timeoutSecs <= 0)
    throw new Error("--timeout must be a number of seconds.");
  const project = readProject(dirArg, flags.config);
  const name = flags.name ?? deploymentNameFrom(path.basename(project.dir));
  if (!NAME.test(name) || name.endsWith("-")) {
    throw new Error(
      `--name ${name}: a deployment name starts with a lowercase letter, holds only lowercase letters, digits and '-', does not end with '-', and has at most 63 characters.`,
    );
  }
  const secrets = collectSecrets(project, flags, print);
  const startedAt = Date.now();

  const packed = await packProject(project.dir);
  print(`Packed ${project.dir}: ${packed.files.length} files, ${formatBytes(packed.archive.length)}`);

  const client = new ControlPlaneClient(
    target.url,
    target.apiKey,
    target.workspace,
    target.urlSource,
    target.keySource,
  );
  let deployment = await client.findDeploymentByName(name);
  if (deployment && deployment.source !== "internal_source") {
    throw new Error(
      `deployment '${name}' exists with source '${deployment.source}'; berth deploy uploads source code and only updates internal_source deployments. Choose another --name.`,
    );
  }
  if (deployment) {
    print(`Deployment ${name} (${deployment.id}): adding a revision`);
  } else {
    deployment = await client.createSourceDeployment(name, secrets ?? []);
    print(`Deployment ${name} (${deployment.id}): created`);
  }

  const slot = await client.requestUploadUrl(deployment.id);
  await client.uploadArchive(slot.upload_url, packed.archive);
  const revision = await client.createRevision(deployment.id, {
    source_revision_config: { source_tarball_path: slot.object_path, graph_config_path: project.configPath },
    ...(secrets ? { secrets } : {}),
  });
  print(`Uploaded; revision ${revision.id} (${project.configPath}, graphs: ${project.graphs.join(", ")})`);

  if (!flags.wait) {
    print(
      `Not waiting. Follow it with: curl -s "${client.baseUrl}/v2/deployments/${deployment.id}/revisions/${revision.id}" -H "X-Api-Key: $BERTH_API_KEY"`,
    );
    return 0;
  }
  return follow(client, deployment, revision, project, { startedAt, timeoutSecs, print });
}

async function follow(
  client: ControlPlaneClient,
  deployment: DeploymentRecord,
  revision: RevisionRecord,
  project: Project,
  options: { startedAt: number; timeoutSecs: number; print: (line: string) => void },
): Promise<number> {
  const { print } = options;
  const stop = new AbortController();
  const onSigint = () => stop.abort();
  process.once("SIGINT", onSigint);
  let outcome: Awaited<ReturnType<typeof watchRevision>>;
  try {
    outcome = await watchRevision(client, {
      deploymentId: deployment.id,
      revisionId: revision.id,
      timeoutMs: options.timeoutSecs * 1000,
      pollMs: 500,
      print,
      signal: stop.signal,
      startedAt: options.startedAt,
    });
  } finally {
    process.off("SIGINT", onSigint);
  }
  const status = outcome.revision.status;
  const ids = `deployment ${deployment.id}, revision ${revision.id}`;
  if (outcome.kind === "stopped") {
    print(`Stopped following at ${status}; the control plane carries on (${ids}).`);
    return 130;
  }
  if (outcome.kind === "timeout") {
    print(`Gave up after ${options.timeoutSecs} s: the revision is still ${status} (${ids}).`);
    return 1;
  }
  if (status === "DEPLOYED") {
    const current = await client.getDeployment(deployment.id);
    const url = current.source_config.custom_url ?? `${client.baseUrl}/agents/${deployment.id}`;
    print(`Deployed ${deployment.name} in ${elapsed(options.startedAt).trim()}`);
    if (current.active_revision_id !== revision.id) {
      print(
        `  Note: the active revision is ${current.active_revision_id}; a newer deploy may have replaced this one.`,
      );
    }
    print(`  URL:    ${url}  (send the API key as X-Api-Key)`);
    print(`  Graphs: ${project.graphs.join(", ")}`);
    print(
      `  SDK:    new Client({ apiUrl: "${url}", apiKey: process.env.BERTH_API_KEY })  // @langchain/langgraph-sdk`,
    );
    // Best effort: an older control plane has no Studio links.
    const studio = await client
      .request<{ studio_url: string; expires_at: string }>(
        "POST",
        `/v2/deployments/${encodeURIComponent(deployment.id)}/studio-link`,
      )
      .catch(() => undefined);
    if (studio) print(`  Studio: ${studio.studio_url}  (works until ${studio.expires_at})`);
    return 0;
  }
  const type = status === "DEPLOY_FAILED" ? "deploy" : "build";
  if (status === "DEPLOY_FAILED") {
    // The agent server's own output is not streamed: its last lines say why it did not start.
    print(`Revision ${status}. Last deploy log lines:`);
    for (const line of await lastLogLines(client, deployment.id, revision.id, "deploy", 20)) {
      print(formatLogLine(line));
    }
  } else if (status.endsWith("_FAILED")) {
    // The build log was streamed above; repeat the error that ended it.
    const last = await lastLogLines(client, deployment.id, revision.id, "build", 200);
    const error = last.filter((l) => l.level === "ERROR").at(-1) ?? last.at(-1);
    print(`Revision ${status}${error ? `: ${error.message}` : "."} (build log above)`);
  } else if (status === "SKIPPED") {
    print("Revision SKIPPED: a newer revision of this deployment replaced it before it was built.");
  } else {
    print(`Revision ${status}.`);
  }
  print(
    `  Full logs: GET ${client.baseUrl}/v2/deployments/${deployment.id}/revisions/${revision.id}/logs?type=${type}`,
  );
  return 1;
}
