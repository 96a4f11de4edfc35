// Why a graph module did not load, in words a person can act on: paths relative to the project (a
// build runs in a temporary directory nobody knows), the file and line of a syntax error, and no
// stack frames of the bundler that compiled it.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { GraphSpec } from "./spec.js";

/** A path as the project's author knows it: relative to the configuration file's directory. */
export function projectRelative(spec: GraphSpec, file: string): string {
  const rel = path.relative(path.dirname(spec.declared.configPath), file);
  return rel.startsWith("..") || path.isAbsolute(rel) ? file : `./${rel.split(path.sep).join("/")}`;
}

/**
 * A module that does not exist: the entry of the configuration that names it, and what the
 * nearest existing directory on its way holds (a typo is then plain to see).
 */
export function missingModuleReason(spec: GraphSpec): string {
  const config = path.basename(spec.declared.configPath);
  const wanted = projectRelative(spec, spec.modulePath);
  let dir = path.dirname(spec.modulePath);
  while (!fs.existsSync(dir) && dir !== path.dirname(dir)) dir = path.dirname(dir);
  let listing = "";
  try {
    const entries = fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => !e.name.startsWith(".") && e.name !== "node_modules")
      .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
      .sort();
    const shown =
      entries.slice(0, 20).join(", ") + (entries.length > 20 ? `, … (${entries.length} in all)` : "");
    listing = `; ${projectRelative(spec, dir)} holds: ${shown || "nothing"}`;
  } catch {
    // unreadable: the entry alone says enough
  }
  return `${wanted} does not exist ("graphs.${spec.graphId}": "${spec.declared.entry}" in ${config})${listing}`;
}

/** One line of esbuild's report as tsx passes it on: `<file>:<line>:<column>: ERROR: <text>`. */
const ESBUILD_LINE = /^(.+?):(\d+):(\d+): ERROR: (.+)$/;

/** A compiler's complaint about one place of a file (esbuild's shape: 1-based line, 0-based column). */
interface SyntaxProblem {
  file: string;
  line: number;
  column: number;
  text: string;
  lineText?: string | undefined;
}

/**
 * The reason an import failed: a syntax error as `file:line:column: text` with the offending line
 * (esbuild compiles the module through tsx); any other error as its message and, when the stack
 * has one, the project's own frame that threw it.
 */
export function importFailureReason(spec: GraphSpec, error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // tsx keeps only the text of esbuild's report. In a CommonJS project it compiles through
  // require(), and a syntax error surfaces as Node's "Cannot require() ES Module … in a cycle":
  // then the same compiler is asked what is wrong with the file.
  const problems = reportedProblems(spec, error.message);
  const found = problems.length > 0 ? problems : compilerProblems(spec.modulePath);
  if (found.length > 0) {
    return found
      .map(({ file, line, column, text, lineText }) => {
        const source = (lineText ?? sourceLine(file, line))?.trim().slice(0, 120);
        return `${projectRelative(spec, file)}:${line}:${column + 1}: ${text}${source ? ` in: ${source}` : ""}`;
      })
      .join("; ");
  }
  const frame = projectFrame(spec, error.stack ?? "");
  // Node names files by absolute path; in a build that is a temporary directory.
  const message = error.message.replaceAll(`${path.dirname(spec.declared.configPath)}${path.sep}`, "./");
  return frame ? `${message} (at ${frame})` : message;
}

function reportedProblems(spec: GraphSpec, message: string): SyntaxProblem[] {
  return message
    .split("\n")
    .map((line) => ESBUILD_LINE.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map(([, file = "", line = "0", column = "0", text = ""]) => ({
      file: path.resolve(path.dirname(spec.modulePath), file),
      line: Number(line),
      column: Number(column),
      text,
    }));
}

/** What esbuild (tsx's own copy, the compiler that failed) says about a module; none when it compiles. */
function compilerProblems(file: string): SyntaxProblem[] {
  try {
    const fromTsx = createRequire(createRequire(import.meta.url).resolve("tsx/package.json"));
    const esbuild = fromTsx("esbuild") as {
      transformSync(code: string, options: { loader: string; sourcefile: string }): unknown;
    };
    const ext = path.extname(file).slice(1);
    const loader = /^[mc]?ts$/.test(ext) ? "ts" : ext === "tsx" || ext === "jsx" ? ext : "js";
    esbuild.transformSync(fs.readFileSync(file, "utf8"), { loader, sourcefile: file });
    return [];
  } catch (error) {
    const errors = (
      error as { errors?: Array<{ text: string; location?: Omit<SyntaxProblem, "text" | "file"> }> }
    ).errors;
    return (errors ?? []).flatMap(({ text, location }) => (location ? [{ ...location, file, text }] : []));
  }
}

/** Line `n` (1-based) of a file; null when unreadable. */
function sourceLine(file: string, n: number): string | null {
  try {
    return fs.readFileSync(file, "utf8").split("\n")[n - 1] ?? null;
  } catch {
    return null;
  }
}

/** The first stack frame in the project's own files (not its node_modules), project-relative. */
function projectFrame(spec: GraphSpec, stack: string): string | null {
  const projectDir = path.dirname(spec.declared.configPath);
  for (const match of stack.matchAll(/(?:file:\/\/)?(\/[^\s():]+):(\d+):(\d+)/g)) {
    const [, file = "", line, column] = match;
    if (file.startsWith(projectDir + path.sep) && !file.includes(`${path.sep}node_modules${path.sep}`)) {
      return `${projectRelative(spec, file)}:${line}:${column}`;
    }
  }
  return null;
}
