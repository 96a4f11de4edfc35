import { type Command, Option } from "commander";
import { ControlPlaneClient } from "../control-plane-client.js";
import { resolveControlPlaneUrl } from "../endpoint.js";
import { DEFAULT_CONTROL_PLANE_URL } from "./deploy.js";

/** The options every command that talks to a control plane takes. */
export interface ConnectionFlags {
  url?: string;
  apiKey?: string;
  workspace?: string;
  json?: boolean;
}

/** Adds --url, --api-key, --workspace and --json to a command. */
export function withConnection(command: Command): Command {
  return command
    .addOption(
      new Option(
        "--url <url>",
        `control plane URL (default: the one berth up listens on, else ${DEFAULT_CONTROL_PLANE_URL})`,
      ).env("BERTH_URL"),
    )
    .addOption(new Option("--api-key <key>", "API key of the control plane").env("BERTH_API_KEY"))
    .addOption(
      new Option("--workspace <id>", "workspace to act in, for keys that reach several (X-Tenant-Id)").env(
        "BERTH_WORKSPACE",
      ),
    )
    .option("--json", "print JSON (one object per line) instead of text, for scripts");
}

/** The client for a command's connection flags; fails clearly without a key. */
export function clientOf(flags: ConnectionFlags): ControlPlaneClient {
  if (!flags.apiKey) {
    throw new Error(
      "an API key is required: pass --api-key <key> or set BERTH_API_KEY (berth up prints the admin key on first start).",
    );
  }
  const { url, source } = resolveControlPlaneUrl(flags.url, DEFAULT_CONTROL_PLANE_URL);
  return new ControlPlaneClient(url, flags.apiKey, flags.workspace, source);
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
