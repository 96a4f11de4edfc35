import fs from "node:fs";
import path from "node:path";
import ignore from "ignore";

/** Whether `dir` or a parent holds a git repository. */
function inGitRepository(dir: string): boolean {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, ".git"))) return true;
    if (path.dirname(d) === d) return false;
  }
}

/**
 * Adds the dev server's data directory to the project's `.gitignore` (creating the file in a git
 * repository), so threads and checkpoints are never committed. Returns the line added, or null.
 */
export function ignoreDataDir(projectDir: string, dataDir: string): string | null {
  const relative = path.relative(projectDir, dataDir);
  if (!relative || relative.startsWith("..") || path.isAbsolute(relative)) return null;
  const file = path.join(projectDir, ".gitignore");
  const exists = fs.existsSync(file);
  if (!exists && !inGitRepository(projectDir)) return null;
  const text = exists ? fs.readFileSync(file, "utf8") : "";
  const posix = relative.split(path.sep).join("/");
  if (ignore().add(text).ignores(`${posix}/`)) return null;
  // The top directory of Berth's state (`.berth/`), not only the agent server's part of it.
  const first = posix.split("/")[0] ?? posix;
  const line = `/${first}/`;
  try {
    fs.writeFileSync(file, `${text}${text && !text.endsWith("\n") ? "\n" : ""}${line}\n`);
    return line;
  } catch {
    return null;
  }
}
