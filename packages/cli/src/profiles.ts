import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Control planes the CLI remembers, one profile each, keyed by URL (as cloud CLIs keep their
 * profiles). A key saved in a profile is only ever sent to that profile's URL; `berth up` drops it
 * when another control plane (another data directory) takes the URL over.
 */
export interface Profile {
  url: string;
  api_key?: string | undefined;
  workspace?: string | undefined;
  /** Set by `berth up`: the data directory of the control plane that listens at `url`. */
  data_dir?: string | undefined;
  /** Set by `berth up`: the process that serves `url` (alive or not). */
  pid?: number | undefined;
}

export interface ProfileFile {
  current: string | null;
  profiles: Record<string, Profile>;
}

/** `~/.berth` unless BERTH_CONFIG_DIR says otherwise (tests point it at a temporary directory). */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.BERTH_CONFIG_DIR || path.join(os.homedir(), ".berth");
}

export function profilesPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(configDir(env), "profiles.json");
}

/** A URL as profiles compare it: no trailing slash. */
export function normalizeUrl(url: string): string {
  return url.replace(/\/+$/, "");
}

/** The default profile name of a URL: its host and port ("127.0.0.1:8124"). */
export function profileNameOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

export function readProfiles(file = profilesPath()): ProfileFile {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<ProfileFile>;
    const profiles: Record<string, Profile> = {};
    for (const [name, p] of Object.entries(parsed.profiles ?? {})) {
      if (p && typeof p.url === "string") profiles[name] = p;
    }
    const current = typeof parsed.current === "string" && profiles[parsed.current] ? parsed.current : null;
    return { current, profiles };
  } catch {
    return { current: null, profiles: {} };
  }
}

/** Writes the whole file at once (a rename), readable by this OS user only: it holds keys. */
export function writeProfiles(data: ProfileFile, file = profilesPath()): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temp, file);
}

/** The profile name for `nameOrUrl`: a name, else the profile whose URL it is. */
export function findProfile(data: ProfileFile, nameOrUrl: string): string | undefined {
  if (data.profiles[nameOrUrl]) return nameOrUrl;
  const url = normalizeUrl(nameOrUrl);
  return Object.keys(data.profiles).find((name) => normalizeUrl(data.profiles[name]?.url ?? "") === url);
}

export function alive(pid: number | undefined): boolean {
  if (!pid || !Number.isInteger(pid)) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * What `berth up` records as it listens: the profile of its URL, with the key it was started with
 * or generated (a key this control plane issued). A different data directory at the same URL is
 * another control plane: the old key is dropped. It becomes the current profile only when there
 * is none, or the current one is a `berth up` that no longer runs — a second `berth up` never takes
 * over the first one's commands. Returns the profile name and whether it is current.
 */
export function recordUpProfile(
  input: { url: string; dataDir: string; apiKey: string | null; pid: number },
  file = profilesPath(),
): { name: string; current: boolean } | undefined {
  try {
    const data = readProfiles(file);
    const url = normalizeUrl(input.url);
    const name = findProfile(data, url) ?? profileNameOf(url);
    const previous = data.profiles[name];
    const sameServer = previous?.data_dir === undefined || previous.data_dir === input.dataDir;
    const apiKey = input.apiKey ?? (sameServer ? previous?.api_key : undefined);
    data.profiles[name] = {
      url,
      ...(apiKey ? { api_key: apiKey } : {}),
      ...(sameServer && previous?.workspace ? { workspace: previous.workspace } : {}),
      data_dir: input.dataDir,
      pid: input.pid,
    };
    const current = data.current ? data.profiles[data.current] : undefined;
    if (!current || data.current === name || (current.pid !== undefined && !alive(current.pid))) {
      data.current = name;
    }
    writeProfiles(data, file);
    return { name, current: data.current === name };
  } catch {
    // A read-only home only costs the discovery: --url and --api-key still work.
    return undefined;
  }
}
