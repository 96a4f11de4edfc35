import fs from "node:fs";
import path from "node:path";
import ignore, { type Ignore } from "ignore";
import { create as createTar } from "tar";

/** Directories never uploaded, at any depth: installs, VCS data, build output, Berth's own state. */
export const EXCLUDED_DIRS: ReadonlySet<string> = new Set(["node_modules", ".git", "dist", ".berth"]);

/** `.env` and `.env.<anything>` hold secrets: they are sent as secrets (--env-file), never uploaded. */
export function isEnvFile(name: string): boolean {
  return name === ".env" || name.startsWith(".env.");
}

/** Whether a project-relative POSIX path would be left out of the archive. */
export function isExcluded(relativePath: string): boolean {
  const parts = relativePath.split("/");
  const file = parts.at(-1) ?? "";
  return parts.slice(0, -1).some((p) => EXCLUDED_DIRS.has(p)) || EXCLUDED_DIRS.has(file) || isEnvFile(file);
}

/** The ignore rules in force in one directory: its own .gitignore, relative to it. */
interface Rules {
  base: string;
  matcher: Ignore;
}

function readRules(file: string): Ignore | null {
  try {
    return ignore().add(fs.readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}

/** Whether any rule in force ignores `rel` (a directory gets a trailing `/`, as git matches it). */
function ignored(rules: readonly Rules[], rel: string, isDir: boolean): boolean {
  for (const { base, matcher } of rules) {
    const local = base ? rel.slice(base.length + 1) : rel;
    if (matcher.ignores(isDir ? `${local}/` : local)) return true;
  }
  return false;
}

/**
 * The regular files of `dir` that are uploaded, as sorted POSIX paths (symlinks are skipped):
 * without installs, VCS data, build output, Berth's state and `.env` files, and without what the
 * project's `.dockerignore` (at its root, as `docker build` reads it) and `.gitignore` files (at
 * any depth, each relative to its directory) leave out.
 */
export function listProjectFiles(dir: string): string[] {
  const files: string[] = [];
  const rootRules: Rules[] = [];
  const docker = readRules(path.join(dir, ".dockerignore"));
  if (docker) rootRules.push({ base: "", matcher: docker });
  const walk = (absolute: string, relative: string, inherited: readonly Rules[]) => {
    const own = readRules(path.join(absolute, ".gitignore"));
    const rules = own ? [...inherited, { base: relative, matcher: own }] : inherited;
    for (const entry of fs.readdirSync(absolute, { withFileTypes: true })) {
      const rel = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!EXCLUDED_DIRS.has(entry.name) && !ignored(rules, rel, true)) {
          walk(path.join(absolute, entry.name), rel, rules);
        }
      } else if (entry.isFile() && !isEnvFile(entry.name) && !ignored(rules, rel, false)) {
        files.push(rel);
      }
    }
  };
  walk(dir, "", rootRules);
  return files.sort();
}

/** A packed project. */
export interface PackedProject {
  archive: Buffer;
  files: string[];
}

/** Packs the project directory into a gzipped tarball in memory (portable: no owners, no modes beyond the file's). */
export async function packProject(dir: string): Promise<PackedProject> {
  const files = listProjectFiles(dir);
  const chunks: Buffer[] = [];
  const stream = createTar(
    { gzip: true, cwd: dir, portable: true, follow: false, noDirRecurse: true },
    files,
  );
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return { archive: Buffer.concat(chunks), files };
}

/** 1536 → "1.5 KiB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
