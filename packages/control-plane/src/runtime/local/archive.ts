import fs from "node:fs";
import path from "node:path";
import * as tar from "tar";

/** Limits of an extracted source archive. */
export interface ArchiveLimits {
  /** Sum of the entries' sizes. */
  maxBytes: number;
  maxEntries: number;
  /** Path components of the deepest entry. */
  maxDepth: number;
}

/** The archive breaks a rule; the message says which entry and why. */
export class ArchiveRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ArchiveRejectedError";
  }
}

/** What an entry is, as far as the checks care. */
export interface ArchiveEntry {
  path: string;
  type: string;
  size: number;
  linkpath?: string | undefined;
}

const ALLOWED_TYPES = new Set(["File", "OldFile", "ContiguousFile", "Directory", "SymbolicLink", "Link"]);
/** Headers that describe the next entry rather than being one. */
const META_TYPES = new Set([
  "ExtendedHeader",
  "GlobalExtendedHeader",
  "OldExtendedHeader",
  "NextFileHasLongPath",
  "NextFileHasLongLinkpath",
  "OldGnuLongPath",
]);

/**
 * Checks a whole archive's entries before anything is written: relative paths only, no `..`
 * component, no devices or FIFOs, links that stay inside the tree, nothing placed through a
 * symbolic link the archive made, and the size, count and depth limits. Pure: tested directly.
 */
export class ArchivePolicy {
  #entries = 0;
  #bytes = 0;
  readonly #links = new Set<string>();

  constructor(private readonly limits: ArchiveLimits) {}

  /** Throws ArchiveRejectedError when `entry` may not be extracted. */
  check(entry: ArchiveEntry): void {
    if (META_TYPES.has(entry.type)) return;
    const shown = JSON.stringify(entry.path);
    if (!ALLOWED_TYPES.has(entry.type)) {
      throw new ArchiveRejectedError(
        `${shown} is a ${entry.type}; only files, directories and links are allowed.`,
      );
    }
    const name = normalise(entry.path, shown);
    this.#entries += 1;
    this.#bytes += Math.max(0, entry.size);
    if (this.#entries > this.limits.maxEntries) {
      throw new ArchiveRejectedError(`the archive has more than ${this.limits.maxEntries} entries.`);
    }
    if (this.#bytes > this.limits.maxBytes) {
      throw new ArchiveRejectedError(`the archive expands to more than ${this.limits.maxBytes} bytes.`);
    }
    const parts = name === "" ? [] : name.split("/");
    if (parts.length > this.limits.maxDepth) {
      throw new ArchiveRejectedError(`${shown} is nested deeper than ${this.limits.maxDepth} directories.`);
    }
    for (let i = 1; i < parts.length; i += 1) {
      if (this.#links.has(parts.slice(0, i).join("/"))) {
        throw new ArchiveRejectedError(
          `${shown} would be written through the symbolic link ${parts.slice(0, i).join("/")}.`,
        );
      }
    }
    if (entry.type === "SymbolicLink" || entry.type === "Link") {
      const target = entry.linkpath ?? "";
      if (target === "" || path.posix.isAbsolute(target) || /^[A-Za-z]:[\\/]/.test(target)) {
        throw new ArchiveRejectedError(`${shown} links to ${JSON.stringify(target)}, outside the source.`);
      }
      // A hard link's target is relative to the archive root; a symlink's to its own directory.
      const base = entry.type === "Link" ? "" : path.posix.dirname(name);
      const resolved = path.posix.normalize(
        path.posix.join(base === "." ? "" : base, target.replace(/\\/g, "/")),
      );
      if (resolved === ".." || resolved.startsWith("../")) {
        throw new ArchiveRejectedError(`${shown} links to ${JSON.stringify(target)}, outside the source.`);
      }
      if (entry.type === "SymbolicLink") this.#links.add(name);
    }
  }

  /** Entries and bytes seen so far. */
  get totals(): { entries: number; bytes: number } {
    return { entries: this.#entries, bytes: this.#bytes };
  }
}

/** The entry's path without `./` and trailing slashes; rejects absolute paths and `..`. */
function normalise(raw: string, shown: string): string {
  const unix = raw.replace(/\\/g, "/");
  if (unix.startsWith("/") || /^[A-Za-z]:\//.test(unix)) {
    throw new ArchiveRejectedError(`${shown} is an absolute path.`);
  }
  const parts = unix.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.includes("..")) throw new ArchiveRejectedError(`${shown} contains "..".`);
  if (parts.some((p) => p.includes("\0"))) throw new ArchiveRejectedError(`${shown} contains a NUL byte.`);
  return parts.join("/");
}

/**
 * Extracts a `.tar.gz` source archive into `dest` (which must exist and be empty) in two passes:
 * the first reads every header through ArchivePolicy and writes nothing, the second extracts with
 * node-tar's own guards on (no absolute paths, no writing through links, no foreign owners).
 */
export async function extractSourceArchive(
  archive: string,
  dest: string,
  limits: ArchiveLimits,
): Promise<{ entries: number; bytes: number }> {
  const policy = new ArchivePolicy(limits);
  let problem: Error | null = null;
  try {
    await tar.list({
      file: archive,
      strict: true,
      onReadEntry: (entry) => {
        if (problem) return;
        try {
          policy.check({
            path: entry.path,
            type: entry.type,
            size: entry.size ?? 0,
            linkpath: entry.linkpath,
          });
        } catch (error) {
          problem = error as Error;
        }
      },
    });
  } catch (error) {
    throw new ArchiveRejectedError(`it is not a readable .tar.gz (${(error as Error).message}).`);
  }
  if (problem) throw problem;
  const totals = policy.totals;
  if (totals.entries === 0) throw new ArchiveRejectedError("the archive is empty.");
  await tar.extract({
    file: archive,
    cwd: dest,
    strict: true,
    preservePaths: false,
    preserveOwner: false,
    filter: (_path, entry) => "type" in entry && ALLOWED_TYPES.has(String(entry.type)),
  });
  ensureInside(dest);
  return totals;
}

/** A last check after extraction: every symbolic link under `root` resolves inside it. */
function ensureInside(root: string): void {
  const real = fs.realpathSync(root);
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        let target: string;
        try {
          target = fs.realpathSync(full);
        } catch {
          continue; // dangling links point nowhere: harmless
        }
        if (target !== real && !target.startsWith(real + path.sep)) {
          throw new ArchiveRejectedError(`${path.relative(root, full)} resolves outside the source.`);
        }
      } else if (entry.isDirectory()) walk(full);
    }
  };
  walk(root);
}
