import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { GraphSchema } from "./schemas.js";
import type { GraphSpec } from "./spec.js";

/** What a parse of a graph's TypeScript types gave: its schemas by graph name, or why there are none. */
export type StaticSchemaResult =
  | { ok: true; schemas: Record<string, GraphSchema> }
  | {
      ok: false;
      reason: string /** A timeout says how busy the machine was, not what the files are. */;
      transient: boolean;
    };

/** Where parsed schemas are kept between processes, keyed by what the parse read. */
export interface StaticSchemaCache {
  get(spec: GraphSpec): StaticSchemaResult | undefined;
  put(spec: GraphSpec, result: StaticSchemaResult): void;
}

/** Files a TypeScript-type parse may read in a project: its sources, manifests, lock and tsconfig. */
const SOURCE = /\.(?:[cm]?[jt]sx?|json)$/;
/** Beyond this many files, the project is not fingerprinted (the cache then lives in memory only). */
const MAX_FILES = 20_000;

/**
 * A digest of every file a parse of the project's types could depend on: the project's sources and
 * JSON (package.json, the lock file, tsconfig) outside node_modules and dot-directories (.git, the
 * data directory .berth). A changed file, an added one or a new lock file changes it; the installed
 * packages follow the lock file. Undefined when the project is too large to read at start-up.
 */
export function projectFingerprint(projectDir: string): string | undefined {
  const files: string[] = [];
  const walk = (dir: string): boolean => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return true;
    }
    for (const entry of entries) {
      if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!walk(full)) return false;
      } else if (entry.isFile() && SOURCE.test(entry.name)) {
        files.push(full);
        if (files.length > MAX_FILES) return false;
      }
    }
    return true;
  };
  if (!walk(projectDir)) return undefined;
  const hash = createHash("sha256");
  for (const file of files.sort()) {
    hash.update(path.relative(projectDir, file)).update("\0");
    try {
      hash.update(fs.readFileSync(file)).update("\0");
    } catch {
      hash.update("unreadable\0");
    }
  }
  return hash.digest("hex");
}

/** The directory `berth dev --check --cache-schemas` fills in a project (a revision's build directory). */
export function projectSchemaDir(projectDir: string): string {
  return path.join(projectDir, ".berth", "schemas");
}

/**
 * Parsed schemas on disk, one JSON file per graph and fingerprint, so a restart with unchanged files
 * answers at once and a change of any file is a miss. Written in `dir` (the server's data
 * directory); read there, then in `seed` (the project's `.berth/schemas`, which the build of a
 * revision fills with `berth dev --check --cache-schemas` in its build directory). Failures are
 * kept with their reason, timeouts only in memory (another try may succeed on a quieter machine).
 * A directory that cannot be written still leaves this process its memory.
 */
export class DiskSchemaCache implements StaticSchemaCache {
  private readonly memory = new Map<string, StaticSchemaResult>();

  private readonly fingerprint: string | undefined;

  constructor(
    private readonly dir: string,
    private readonly seed: string | undefined,
    /** The project directory: module paths are keyed relative to it (a build directory moves). */
    private readonly projectDir: string,
    /** The parser's identity. */
    private readonly parser: string,
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    // Undefined when the project has too many files: memory only.
    this.fingerprint = projectFingerprint(projectDir);
  }

  private key(spec: GraphSpec): string {
    const module = path.relative(this.projectDir, spec.modulePath);
    return createHash("sha256")
      .update([this.parser, this.fingerprint ?? "", spec.graphId, module, spec.exportName].join("\0"))
      .digest("hex")
      .slice(0, 32);
  }

  /** `<graph id>@<key>.json` (the id escaped: `@` and path separators cannot appear in it). */
  private name(spec: GraphSpec): string {
    return `${encodeURIComponent(spec.graphId)}@${this.key(spec)}.json`;
  }

  get(spec: GraphSpec): StaticSchemaResult | undefined {
    const key = this.key(spec);
    const known = this.memory.get(key);
    if (known || this.fingerprint === undefined) return known;
    for (const dir of [this.dir, this.seed]) {
      const file = dir && path.join(dir, this.name(spec));
      if (!file || !fs.existsSync(file)) continue;
      try {
        const result = JSON.parse(fs.readFileSync(file, "utf8")) as StaticSchemaResult;
        this.memory.set(key, result);
        return result;
      } catch (error) {
        this.onError(error);
      }
    }
    return undefined;
  }

  put(spec: GraphSpec, result: StaticSchemaResult): void {
    this.memory.set(this.key(spec), result);
    if (this.fingerprint === undefined || (!result.ok && result.transient)) return;
    const file = path.join(this.dir, this.name(spec));
    try {
      fs.mkdirSync(this.dir, { recursive: true });
      // Older fingerprints of this graph are stale: one file per graph stays.
      const prefix = `${encodeURIComponent(spec.graphId)}@`;
      for (const name of fs.readdirSync(this.dir)) {
        if (name.startsWith(prefix) && path.join(this.dir, name) !== file) {
          fs.rmSync(path.join(this.dir, name), { force: true });
        }
      }
      const temp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(temp, JSON.stringify(result));
      fs.renameSync(temp, file);
    } catch (error) {
      this.onError(error);
    }
  }
}
