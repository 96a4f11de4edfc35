import type { Command } from "commander";
import {
  alive,
  findProfile,
  normalizeUrl,
  type Profile,
  profileNameOf,
  profilesPath,
  readProfiles,
  writeProfiles,
} from "../profiles.js";
import { printJsonLines, printTable } from "./connection.js";

/** The names a profile is not found by, for error messages. */
function unknown(name: string, known: string[]): Error {
  return new Error(
    `no profile '${name}' (${known.length ? `known: ${known.join(", ")}` : "none saved yet"}); see berth profile list.`,
  );
}

/** `berth profile`: the control planes this CLI remembers, one per URL, and which one is current. */
export function registerProfileCommand(program: Command): void {
  const profile = program
    .command("profile")
    .description("Control planes the CLI remembers (one per URL, with its key) and the current one.")
    .addHelpText(
      "after",
      `
berth up saves a profile for its URL (with the admin key it was started with or generated) and
makes it current unless another current profile's berth up still runs. Commands use the current
profile unless given --profile, --url or BERTH_URL. A saved key is only sent to its profile's URL.
Kept in ${profilesPath()} (readable by you only; BERTH_CONFIG_DIR moves it).`,
    );

  profile
    .command("list")
    .description("List saved control planes; * marks the current one.")
    .option("--json", "print JSON (one object per line) instead of text, for scripts")
    .action((flags: { json?: boolean }) => {
      const data = readProfiles();
      const rows = Object.entries(data.profiles).map(([name, p]) => ({
        name,
        url: p.url,
        current: name === data.current,
        key: p.api_key ? "saved" : "none",
        workspace: p.workspace ?? null,
        running: p.pid === undefined ? null : alive(p.pid),
      }));
      if (flags.json) return printJsonLines(rows);
      if (rows.length === 0) {
        process.stdout.write(
          "No profiles yet: berth up saves one, or berth profile add <name> --url <url>.\n",
        );
        return;
      }
      printTable(
        ["", "NAME", "URL", "KEY", "WORKSPACE", "BERTH UP"],
        rows.map((r) => [
          r.current ? "*" : "",
          r.name,
          r.url,
          r.key,
          r.workspace ?? "-",
          r.running === null ? "-" : r.running ? "running" : "stopped",
        ]),
      );
    });

  profile
    .command("use")
    .description("Make a saved control plane (by name or URL) the current one.")
    .argument("<name>", "profile name or its URL")
    .action((nameOrUrl: string) => {
      const data = readProfiles();
      const name = findProfile(data, nameOrUrl);
      if (!name) throw unknown(nameOrUrl, Object.keys(data.profiles));
      data.current = name;
      writeProfiles(data);
      process.stdout.write(`Current profile: ${name} (${data.profiles[name]?.url})\n`);
    });

  profile
    .command("add")
    .description("Save a control plane by URL, with a key it issued (replaces a profile of that name).")
    .argument("[name]", "profile name (default: the URL's host:port)")
    .requiredOption("--url <url>", "the control plane's URL")
    .option("--api-key <key>", "an API key this control plane issued (or BERTH_API_KEY)")
    .option("--workspace <id>", "workspace to act in, for keys that reach several")
    .option("--use", "make it the current profile")
    .action(
      (
        nameArg: string | undefined,
        flags: { url: string; apiKey?: string; workspace?: string; use?: boolean },
      ) => {
        let url: string;
        try {
          const parsed = new URL(flags.url);
          if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error();
          url = normalizeUrl(parsed.href);
        } catch {
          throw new Error(`--url ${flags.url}: an http:// or https:// URL.`);
        }
        const data = readProfiles();
        const name = nameArg ?? findProfile(data, url) ?? profileNameOf(url);
        const previous = data.profiles[name];
        const sameUrl = previous !== undefined && normalizeUrl(previous.url) === url;
        const apiKey = flags.apiKey ?? process.env.BERTH_API_KEY ?? (sameUrl ? previous.api_key : undefined);
        // A key saved for another URL is never carried over to this one.
        const next: Profile = {
          url,
          ...(apiKey ? { api_key: apiKey } : {}),
          ...((flags.workspace ?? (sameUrl ? previous.workspace : undefined))
            ? { workspace: flags.workspace ?? previous?.workspace }
            : {}),
          ...(sameUrl && previous.data_dir ? { data_dir: previous.data_dir, pid: previous.pid } : {}),
        };
        data.profiles[name] = next;
        if (flags.use || !data.current) data.current = name;
        writeProfiles(data);
        process.stdout.write(
          `Saved profile ${name} (${url}, key ${apiKey ? "saved" : "none"})${data.current === name ? ", current" : ""}.\n`,
        );
      },
    );

  profile
    .command("remove")
    .description("Forget a saved control plane and its key.")
    .argument("<name>", "profile name or its URL")
    .action((nameOrUrl: string) => {
      const data = readProfiles();
      const name = findProfile(data, nameOrUrl);
      if (!name) throw unknown(nameOrUrl, Object.keys(data.profiles));
      delete data.profiles[name];
      if (data.current === name) data.current = null;
      writeProfiles(data);
      process.stdout.write(`Removed profile ${name}.\n`);
    });
}
