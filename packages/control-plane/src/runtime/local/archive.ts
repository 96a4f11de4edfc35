import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
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
  /** Symbolic links seen so far: name → target (relative, as written in the archive). */
  readonly #links = new Map<string, string>();
  /** Hard links seen so far: name → target path (from the archive root). */
  readonly #hardLinks = new Map<string, string>();

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
      if (entry.type === "SymbolicLink") this.#links.set(name, target.replace(/\\/g, "/"));
      else this.#hardLinks.set(name, target.replace(/\\/g, "/"));
    }
  }

  /**
   * The checks that need the whole archive (call after the last header): every link resolved
   * through the links the archive makes, wherever they appear in it (a chain such as `a -> ..`
   * then `b -> x/a/..` stays inside lexically but not on disk), must stay inside; a loop of links
   * is refused too. A hard link may not be reached through a symbolic link at all.
   */
  finish(): void {
    for (const [name, target] of this.#links) {
      const dir = path.posix.dirname(name);
      const start = [...(dir === "." ? [] : dir.split("/")), ...target.split("/")];
      const outcome = this.#resolve(start);
      if (outcome !== "inside") {
        throw new ArchiveRejectedError(
          `${JSON.stringify(name)} links to ${JSON.stringify(target)}, which ${outcome === "loop" ? "loops through other links" : "leads outside the source through other links"}.`,
        );
      }
    }
    for (const [name, target] of this.#hardLinks) {
      const parts = target.split("/").filter((p) => p !== "" && p !== ".");
      for (let i = 1; i <= parts.length; i += 1) {
        if (this.#links.has(parts.slice(0, i).join("/"))) {
          throw new ArchiveRejectedError(
            `${JSON.stringify(name)} is a hard link to ${JSON.stringify(target)}, through the symbolic link ${parts.slice(0, i).join("/")}.`,
          );
        }
      }
    }
  }

  /** Follows a path's components through the archive's symbolic links (at most 40, as the kernel). */
  #resolve(components: string[]): "inside" | "outside" | "loop" {
    const stack: string[] = [];
    const pending = [...components];
    let hops = 0;
    while (pending.length > 0) {
      const part = pending.shift() as string;
      if (part === "" || part === ".") continue;
      if (part === "..") {
        if (stack.length === 0) return "outside";
        stack.pop();
        continue;
      }
      stack.push(part);
      const target = this.#links.get(stack.join("/"));
      if (target === undefined) continue;
      hops += 1;
      if (hops > 40) return "loop";
      stack.pop();
      pending.unshift(...target.split("/"));
    }
    return "inside";
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
 * Extracts a `.tar.gz` source archive into `dest` (which must exist and be empty) in two streamed
 * passes, so memory stays small whatever the archive (a gzip bomb is never held, inflated, in
 * memory): the first reads every header through ArchivePolicy, discards the bodies and stops at the
 * first refused header; the second extracts with node-tar's own guards on (no absolute paths, no
 * writing through links, no foreign owners), with backpressure from the disk.
 */
export async function extractSourceArchive(
  archive: string,
  dest: string,
  limits: ArchiveLimits,
): Promise<{ entries: number; bytes: number }> {
  const policy = new ArchivePolicy(limits);
  await scanHeaders(archive, policy);
  policy.finish();
  const totals = policy.totals;
  if (totals.entries === 0) throw new ArchiveRejectedError("the archive is empty.");
  try {
    await pipeline(
      fs.createReadStream(archive, { highWaterMark: 64 * 1024 }),
      tar.extract({
        cwd: dest,
        strict: true,
        preservePaths: false,
        preserveOwner: false,
        filter: (_path, entry) => "type" in entry && ALLOWED_TYPES.has(String(entry.type)),
      }),
    );
  } catch (error) {
    throw new ArchiveRejectedError(`it could not be extracted (${(error as Error).message}).`);
  }
  ensureInside(dest);
  return totals;
}

/** The first pass: headers through the policy, bodies discarded, stopped at the first refusal. */
async function scanHeaders(archive: string, policy: ArchivePolicy): Promise<void> {
  const source = fs.createReadStream(archive, { highWaterMark: 64 * 1024 });
  let problem: Error | null = null;
  const parser = new tar.Parser({
    strict: true,
    onReadEntry: (entry) => {
      entry.resume();
      if (problem) return;
      try {
        policy.check({ path: entry.path, type: entry.type, size: entry.size ?? 0, linkpath: entry.linkpath });
      } catch (error) {
        problem = error as Error;
        // Stop reading: nothing after a refused header is worth inflating.
        source.destroy(problem);
      }
    },
  });
  try {
    await pipeline(source, parser);
  } catch (error) {
    if (problem) throw problem;
    throw new ArchiveRejectedError(`it is not a readable .tar.gz (${(error as Error).message}).`);
  }
  if (problem) throw problem;
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
