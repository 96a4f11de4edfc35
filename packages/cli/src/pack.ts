import fs from "node:fs";
import path from "node:path";
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

/** The regular files of `dir` that are uploaded, as sorted POSIX paths (symlinks are skipped). */
export function listProjectFiles(dir: string): string[] {
  const files: string[] = [];
  const walk = (absolute: string, relative: string) => {
    for (const entry of fs.readdirSync(absolute, { withFileTypes: true })) {
      const rel = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!EXCLUDED_DIRS.has(entry.name)) walk(path.join(absolute, entry.name), rel);
      } else if (entry.isFile() && !isEnvFile(entry.name)) {
        files.push(rel);
      }
    }
  };
  walk(dir, "");
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
