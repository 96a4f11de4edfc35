import type { Command } from "commander";
import { type ConnectionFlags, clientOf, printJsonLines, printTable, withConnection } from "./connection.js";

/** An API key as the control plane lists it. */
interface ApiKey {
  id: string;
  short_key: string | null;
  description: string | null;
  role: string;
  workspace_ids: string[];
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  key?: string;
}

interface CreateFlags extends ConnectionFlags {
  role: string;
  description?: string;
  workspace?: string;
  workspaces?: string;
  expiresInDays?: string;
  dataDir?: string;
  databaseUrl?: string;
}

function parseRole(role: string): "admin" | "member" {
  if (role !== "admin" && role !== "member")
    throw new Error(`--role must be admin or member, not '${role}'.`);
  return role;
}

function parseDays(days: string | undefined): number | undefined {
  if (days === undefined) return undefined;
  const n = Number(days);
  if (!Number.isInteger(n) || n < 1) throw new Error("--expires-in-days must be a whole number of days ≥ 1.");
  return n;
}

function printCreated(key: ApiKey, json: boolean | undefined): void {
  if (json) {
    printJsonLines([key]);
    return;
  }
  process.stdout.write(
    [
      `API key ${key.id} (${key.role}) for ${key.workspace_ids.join(", ")}${key.expires_at ? `, expires ${key.expires_at}` : ""}.`,
      "The key (shown only this once; store it now):",
      `  ${key.key}`,
      "",
    ].join("\n"),
  );
}

/** `berth keys`: list, create (online or offline from the data directory) and revoke API keys. */
export function registerKeysCommand(program: Command): void {
  const keys = program.command("keys").description("Manage the control plane's API keys (admin keys only).");

  withConnection(
    keys.command("list").description("List the API keys of the workspace (never the keys themselves)."),
  ).action(async (flags: ConnectionFlags) => {
    const list = await clientOf(flags).request<ApiKey[]>("GET", "/api/v1/api-key");
    if (flags.json) return printJsonLines(list);
    printTable(
      ["ID", "PREFIX", "ROLE", "DESCRIPTION", "CREATED", "LAST USED", "EXPIRES"],
      list.map((k) => [
        k.id,
        k.short_key ? `${k.short_key}…` : "-",
        k.role,
        k.description ?? "",
        k.created_at,
        k.last_used_at ?? "never",
        k.expires_at ?? "never",
      ]),
    );
  });

  withConnection(
    keys
      .command("create")
      .description(
        "Create an API key, shown once. With --data-dir, mint it offline straight into a data directory.",
      )
      .option("--role <role>", "admin (manages workspaces and keys) or member", "member")
      .option("--description <text>", "what the key is for")
      .option("--workspaces <ids>", "comma-separated workspace ids it reaches (default: the current one)")
      .option("--expires-in-days <days>", "days until it stops working (default: never)")
      .option(
        "--data-dir <dir>",
        "offline: the control plane's data directory (whoever can read it can mint a key; works while berth up runs)",
      )
      .option("--database-url <url>", "offline, for a control plane whose state is in PostgreSQL"),
  )
    .addHelpText(
      "after",
      `
Examples:
  berth keys create --role member --description ci           # through the API, with an admin key
  berth keys create --data-dir .berth/control-plane --role admin   # recover access offline`,
    )
    .action(async (flags: CreateFlags) => {
      const role = parseRole(flags.role);
      const expiresInDays = parseDays(flags.expiresInDays);
      const workspaceIds = flags.workspaces
        ?.split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      if (flags.dataDir || flags.databaseUrl) {
        // Offline minting opens the control plane's storage: loaded only on this path.
        const { mintOfflineKey } = await import("@berth-platform/control-plane");
        const created = await mintOfflineKey(
          { dataDir: flags.dataDir ?? ".", databaseUrl: flags.databaseUrl },
          { role, description: flags.description, workspaceIds, expiresInDays },
        );
        const { tenant_ids, ...rest } = created.record;
        return printCreated({ ...rest, workspace_ids: tenant_ids, key: created.key }, flags.json);
      }
      const created = await clientOf(flags).request<ApiKey>("POST", "/api/v1/api-key", {
        role,
        ...(flags.description ? { description: flags.description } : {}),
        ...(workspaceIds ? { workspace_ids: workspaceIds } : {}),
        ...(expiresInDays ? { expires_in_days: expiresInDays } : {}),
      });
      printCreated(created, flags.json);
    });

  withConnection(
    keys
      .command("revoke")
      .description("Revoke an API key: it stops working at once.")
      .argument("<id>", "the key's id (from `berth keys list`)"),
  ).action(async (id: string, flags: ConnectionFlags) => {
    await clientOf(flags).request("DELETE", `/api/v1/api-key/${encodeURIComponent(id)}`);
    if (flags.json) return printJsonLines([{ id, revoked: true }]);
    process.stdout.write(`API key ${id} revoked.\n`);
  });
}

/** `berth workspaces`: list and create workspaces. */
export function registerWorkspacesCommand(program: Command): void {
  const workspaces = program.command("workspaces").description("List and create workspaces.");
  interface ListFlags extends ConnectionFlags {
    dataDir?: string;
    databaseUrl?: string;
  }
  withConnection(
    workspaces
      .command("list")
      .description("Workspaces the API key reaches (or, with --data-dir, every workspace, offline).")
      .option("--data-dir <dir>", "offline: read the control plane's data directory")
      .option("--database-url <url>", "offline, for a control plane whose state is in PostgreSQL"),
  ).action(async (flags: ListFlags) => {
    const list =
      flags.dataDir || flags.databaseUrl
        ? (
            await (
              await import("@berth-platform/control-plane")
            ).listWorkspacesOffline({ dataDir: flags.dataDir ?? ".", databaseUrl: flags.databaseUrl })
          ).map((t) => ({ id: t.id, display_name: t.name, created_at: t.created_at }))
        : await clientOf(flags).request<{ id: string; display_name: string; created_at: string }[]>(
            "GET",
            "/api/v1/workspaces",
          );
    if (flags.json) return printJsonLines(list);
    printTable(
      ["ID", "NAME", "CREATED"],
      list.map((w) => [w.id, w.display_name, w.created_at]),
    );
  });
  withConnection(
    workspaces
      .command("create")
      .description("Create a workspace (admin keys; the key reaches it).")
      .argument("<name>"),
  ).action(async (name: string, flags: ConnectionFlags) => {
    const created = await clientOf(flags).request<{ id: string; display_name: string }>(
      "POST",
      "/api/v1/workspaces",
      {
        display_name: name,
      },
    );
    if (flags.json) return printJsonLines([created]);
    process.stdout.write(
      `Workspace ${created.display_name} created: ${created.id}\nAct in it with --workspace ${created.id} (or BERTH_WORKSPACE).\n`,
    );
  });
}
