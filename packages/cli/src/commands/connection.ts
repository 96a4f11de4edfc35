import { type Command, Option } from "commander";
import { resolveTarget } from "../connection-target.js";
import { ControlPlaneClient } from "../control-plane-client.js";
import { DEFAULT_CONTROL_PLANE_URL } from "./deploy.js";

/** The options every command that talks to a control plane takes. */
export interface ConnectionFlags {
  url?: string;
  apiKey?: string;
  workspace?: string;
  profile?: string;
  json?: boolean;
}

/** --profile, --url and --api-key: which control plane, with which key. */
export function targetOptions(): Option[] {
  return [
    new Option(
      "--profile <name>",
      "saved control plane to use (berth profile list; default: the current one)",
    ).env("BERTH_PROFILE"),
    new Option(
      "--url <url>",
      `control plane URL (default: the current profile's, else ${DEFAULT_CONTROL_PLANE_URL})`,
    ).env("BERTH_URL"),
    new Option("--api-key <key>", "API key of the control plane (default: the one saved for its URL)").env(
      "BERTH_API_KEY",
    ),
  ];
}

/** Adds --profile, --url, --api-key, --workspace and --json to a command. */
export function withConnection(command: Command): Command {
  for (const option of targetOptions()) command.addOption(option);
  return command
    .addOption(
      new Option("--workspace <id>", "workspace to act in, for keys that reach several (X-Tenant-Id)").env(
        "BERTH_WORKSPACE",
      ),
    )
    .option("--json", "print JSON (one object per line) instead of text, for scripts");
}

/** The client for a command's connection flags; fails clearly without a key. */
export function clientOf(flags: ConnectionFlags): ControlPlaneClient {
  const target = resolveTarget(flags, DEFAULT_CONTROL_PLANE_URL);
  return new ControlPlaneClient(
    target.url,
    target.apiKey,
    target.workspace,
    target.urlSource,
    target.keySource,
  );
}

/** Prints one JSON object per line. */
export function printJsonLines(items: readonly unknown[]): void {
  for (const item of items) process.stdout.write(`${JSON.stringify(item)}\n`);
}

/** Prints rows as aligned columns under a header. */
export function printTable(header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  process.stdout.write(`${[line(header), ...rows.map(line)].join("\n")}\n`);
}
