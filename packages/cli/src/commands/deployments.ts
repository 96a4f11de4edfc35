import { createInterface } from "node:readline/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { isSettledStatus } from "@berth-platform/control-plane/revision-status";
import type { Command } from "commander";
import type {
  ControlPlaneClient,
  DeploymentRecord,
  LogEntry,
  RevisionRecord,
} from "../control-plane-client.js";
import { LogFollower } from "../deploy-watch.js";
import { type ConnectionFlags, clientOf, printJsonLines, printTable, withConnection } from "./connection.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A deployment named by its id or its name (names are unique per workspace). */
export async function resolveDeployment(client: ControlPlaneClient, ref: string): Promise<DeploymentRecord> {
  if (UUID.test(ref)) return client.getDeployment(ref);
  const found = await client.findDeploymentByName(ref);
  if (!found)
    throw new Error(`No deployment named '${ref}' in this workspace (berth deployments list shows them).`);
  return found;
}

function revisionsOf(
  client: ControlPlaneClient,
  id: string,
  limit = 100,
): Promise<{ resources: RevisionRecord[] }> {
  return client.request("GET", `/v2/deployments/${encodeURIComponent(id)}/revisions?limit=${limit}`);
}

function urlOf(d: DeploymentRecord): string {
  return (d.source_config.custom_url as string | null | undefined) ?? "-";
}

function logLine(entry: LogEntry, type: string): string {
  return `${new Date(entry.timestamp).toISOString()} ${type.padEnd(6)} ${entry.level.padEnd(7)} ${entry.message}`;
}

interface ListFlags extends ConnectionFlags {
  nameContains?: string;
  status?: string;
}

interface LogsFlags extends ConnectionFlags {
  type: string;
  revision?: string;
  follow?: boolean;
  level?: string;
  limit: string;
}

interface DeleteFlags extends ConnectionFlags {
  yes?: boolean;
  deleteTracingProject?: boolean;
}

const LEVELS = ["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"];

/** Whether a line's level is at least `min` (WARN counts as WARNING). */
function atLeast(level: string, min: string | undefined): boolean {
  if (!min) return true;
  const norm = (l: string) => LEVELS.indexOf(l.toUpperCase() === "WARN" ? "WARNING" : l.toUpperCase());
  return norm(level) >= norm(min);
}

/** `berth deployments list`, `berth status`, `berth revisions`, `berth logs`, `berth delete`. */
export function registerDeploymentCommands(program: Command): void {
  const deployments = program.command("deployments").description("List the workspace's deployments.");
  withConnection(
    deployments
      .command("list")
      .description("List deployments: name, id, source, status, agent URL, last update.")
      .option("--name-contains <text>", "only names containing this")
      .option("--status <status>", "only deployments in this status (e.g. READY)"),
  ).action(async (flags: ListFlags) => {
    const params = new URLSearchParams({ limit: "100" });
    if (flags.nameContains) params.set("name_contains", flags.nameContains);
    if (flags.status) params.set("status", flags.status);
    const page = await clientOf(flags).request<{ resources: (DeploymentRecord & { updated_at: string })[] }>(
      "GET",
      `/v2/deployments?${params}`,
    );
    if (flags.json) return printJsonLines(page.resources);
    printTable(
      ["NAME", "ID", "SOURCE", "STATUS", "URL", "UPDATED"],
      page.resources.map((d) => [d.name, d.id, d.source, d.status, urlOf(d), d.updated_at]),
    );
  });

  withConnection(
    program
      .command("status")
      .description("A deployment's status and its latest revision's.")
      .argument("<deployment>", "name or id"),
  ).action(async (ref: string, flags: ConnectionFlags) => {
    const client = clientOf(flags);
    const deployment = await resolveDeployment(client, ref);
    const latest = deployment.latest_revision_id
      ? await client.getRevision(deployment.id, deployment.latest_revision_id)
      : null;
    if (flags.json) return printJsonLines([{ deployment, latest_revision: latest }]);
    process.stdout.write(
      [
        `Deployment ${deployment.name} (${deployment.id})`,
        `  source:          ${deployment.source}`,
        `  status:          ${deployment.status}`,
        `  latest revision: ${latest ? `${latest.id} ${latest.status} (updated ${latest.updated_at})` : "-"}`,
        `  serving:         ${deployment.active_revision_id ?? "nothing yet"}`,
        `  URL:             ${urlOf(deployment)}`,
        "",
      ].join("\n"),
    );
  });

  withConnection(
    program
      .command("revisions")
      .description("A deployment's revisions, newest first.")
      .argument("<deployment>", "name or id"),
  ).action(async (ref: string, flags: ConnectionFlags) => {
    const client = clientOf(flags);
    const deployment = await resolveDeployment(client, ref);
    const { resources } = await revisionsOf(client, deployment.id);
    if (flags.json) return printJsonLines(resources);
    printTable(
      ["ID", "STATUS", "SERVING", "CREATED", "UPDATED"],
      resources.map((r) => [
        r.id,
        r.status,
        r.id === deployment.active_revision_id ? "yes" : "",
        r.created_at,
        r.updated_at,
      ]),
    );
  });

  withConnection(
    program
      .command("logs")
      .description("A revision's build or deploy log (default: the latest revision's build and deploy logs).")
      .argument("<deployment>", "name or id")
      .option("--type <type>", "build, deploy or all", "all")
      .option("--revision <id>", "a revision other than the latest")
      .option("-f, --follow", "keep printing new lines until the revision settles (Ctrl+C stops)")
      .option("--level <level>", "only lines at this level or above (DEBUG, INFO, WARNING, ERROR)")
      .option("--limit <n>", "at most this many lines per log before following", "1000"),
  ).action(async (ref: string, flags: LogsFlags) => {
    const types = flags.type === "all" ? (["build", "deploy"] as const) : ([flags.type] as const);
    for (const t of types) {
      if (t !== "build" && t !== "deploy")
        throw new Error(`--type must be build, deploy or all, not '${t}'.`);
    }
    const client = clientOf(flags);
    const deployment = await resolveDeployment(client, ref);
    const revisionId = flags.revision ?? deployment.latest_revision_id;
    if (!revisionId) throw new Error(`Deployment ${deployment.name} has no revision yet.`);
    const followers = (types as readonly ("build" | "deploy")[]).map((type) => ({
      type,
      follower: new LogFollower(client, deployment.id, revisionId, type),
    }));
    const print = (entry: LogEntry, type: string) => {
      if (!atLeast(entry.level, flags.level)) return;
      if (flags.json) printJsonLines([{ ...entry, type, revision_id: revisionId }]);
      else process.stdout.write(`${logLine(entry, type)}\n`);
    };
    const stop = new AbortController();
    process.once("SIGINT", () => stop.abort());
    for (;;) {
      const lines: { entry: LogEntry; type: string }[] = [];
      for (const { type, follower } of followers) {
        for (const entry of await follower.next()) lines.push({ entry, type });
      }
      lines.sort((a, b) => a.entry.timestamp - b.entry.timestamp);
      for (const { entry, type } of lines) print(entry, type);
      if (!flags.follow || stop.signal.aborted) return;
      const revision = await client.getRevision(deployment.id, revisionId);
      if (isSettledStatus(revision.status)) {
        // One more read: lines written just before the status settled.
        await sleep(300);
        for (const { type, follower } of followers)
          for (const entry of await follower.next()) print(entry, type);
        return;
      }
      await sleep(500, undefined, { signal: stop.signal }).catch(() => undefined);
    }
  });

  withConnection(
    program
      .command("delete")
      .description("Delete a deployment: its agent stops and its data is removed.")
      .argument("<deployment>", "name or id")
      .option("-y, --yes", "do not ask for confirmation (needed when stdin is not a terminal)")
      .option("--delete-tracing-project", "also delete the deployment's tracing project"),
  ).action(async (ref: string, flags: DeleteFlags) => {
    const client = clientOf(flags);
    const deployment = await resolveDeployment(client, ref);
    if (!flags.yes) {
      if (!process.stdin.isTTY) throw new Error("refusing to delete without confirmation: pass --yes.");
      const rl = createInterface({ input: process.stdin, output: process.stdout });
      const answer = await rl.question(
        `Delete deployment ${deployment.name} (${deployment.id})? Type its name to confirm: `,
      );
      rl.close();
      if (answer.trim() !== deployment.name) throw new Error("not confirmed; nothing deleted.");
    }
    const query = flags.deleteTracingProject ? "?delete_tracing_project=true" : "";
    await client.request("DELETE", `/v2/deployments/${encodeURIComponent(deployment.id)}${query}`);
    if (flags.json) return printJsonLines([{ id: deployment.id, name: deployment.name, deleted: true }]);
    process.stdout.write(`Deployment ${deployment.name} (${deployment.id}) is being deleted.\n`);
  });
}
