import path from "node:path";
import { type HttpCorsConfig, parseHttpCors } from "../http/cors.js";
import { type ProjectHttpConfig, parseProjectHttp } from "../http/project-http.js";

/** One graph of a project: where its module is and which export holds it. */
export interface GraphSpec {
  graphId: string;
  /** Absolute path of the module. */
  modulePath: string;
  /** Export name; "default" when the entry names none. */
  exportName: string;
  description: string | null;
  /** Where it was declared, for messages: the configuration file (absolute) and the entry as written. */
  declared: { configPath: string; entry: string };
}

/** A parsed graph configuration file (graph.json / langgraph.json). */
export interface GraphProjectConfig {
  configPath: string;
  /** Directory of the configuration file: module and env paths are relative to it. */
  projectDir: string;
  graphs: GraphSpec[];
  /** Inline variables, or the absolute path of an env file to read. */
  env: { kind: "inline"; values: Record<string, string> } | { kind: "file"; path: string } | { kind: "none" };
  dependencies: string[];
  /** Optional auth module (`auth.path`), kept for the custom-auth issue. */
  authPath: string | null;
  /** `http.cors`: the server's CORS policy; null means open to every origin (the default). */
  cors: HttpCorsConfig | null;
  /** `http` besides `cors`: the project's own app, disabled route groups, configurable headers. */
  http: ProjectHttpConfig;
  /** `ui`: generative UI components by name, absolute module paths. */
  ui: Record<string, string>;
  /** `ui_config.shared`: packages the host page provides, left out of UI bundles. */
  uiShared: string[];
  nodeVersion: string | null;
  /** Keys of the file Berth does not act on (reported at start-up, never ignored silently). */
  unsupported: string[];
}

/** Top-level keys Berth reads (`$`-prefixed keys such as `$schema` and `$comment` are notes). */
const KNOWN_KEYS = new Set([
  "graphs",
  "env",
  "dependencies",
  "auth",
  "http",
  "ui",
  "ui_config",
  "node_version",
]);

/** A graph configuration that cannot be used, with the reason in words. */
export class GraphConfigError extends Error {
  constructor(configPath: string, reason: string) {
    super(`Invalid graph configuration ${configPath}: ${reason}`);
    this.name = "GraphConfigError";
  }
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** Parses the JSON of a graph configuration file; paths are resolved against its directory. */
export function parseGraphConfig(json: unknown, configPath: string): GraphProjectConfig {
  const fail = (reason: string): never => {
    throw new GraphConfigError(configPath, reason);
  };
  if (json === null || typeof json !== "object" || Array.isArray(json)) fail("expected a JSON object");
  const raw = json as Record<string, unknown>;
  const projectDir = path.dirname(configPath);

  const graphsRaw = raw.graphs;
  if (graphsRaw === null || typeof graphsRaw !== "object" || Array.isArray(graphsRaw)) {
    fail('"graphs" must be an object mapping graph ids to "./path/to/file.ts:exportName"');
  }
  const entries = Object.entries(graphsRaw as Record<string, unknown>);
  if (entries.length === 0) fail('"graphs" names no graph');
  const graphs = entries.map(([graphId, entry]) => parseGraphEntry(graphId, entry, configPath, fail));

  let env: GraphProjectConfig["env"] = { kind: "none" };
  if (typeof raw.env === "string") env = { kind: "file", path: path.resolve(projectDir, raw.env) };
  else if (raw.env !== undefined && raw.env !== null) {
    if (typeof raw.env !== "object" || Array.isArray(raw.env))
      fail('"env" must be an object or a path to an env file');
    const values: Record<string, string> = {};
    for (const [key, value] of Object.entries(raw.env as Record<string, unknown>)) {
      if (typeof value !== "string") fail(`"env.${key}" must be a string`);
      values[key] = value as string;
    }
    env = { kind: "inline", values };
  }

  const dependencies = raw.dependencies ?? [];
  if (!Array.isArray(dependencies) || dependencies.some((d) => typeof d !== "string")) {
    fail('"dependencies" must be an array of strings');
  }

  let authPath: string | null = null;
  if (raw.auth !== undefined && raw.auth !== null) {
    const auth = raw.auth as Record<string, unknown>;
    if (typeof auth !== "object" || (auth.path !== undefined && typeof auth.path !== "string")) {
      fail('"auth.path" must be a string');
    }
    authPath = typeof auth.path === "string" ? auth.path : null;
  }

  const nodeVersion = raw.node_version;
  if (nodeVersion !== undefined && typeof nodeVersion !== "string") fail('"node_version" must be a string');

  const cors = parseHttpCors(raw.http, fail);
  const http = parseProjectHttp(raw.http, projectDir, fail);

  const ui: Record<string, string> = {};
  if (raw.ui !== undefined && raw.ui !== null) {
    if (typeof raw.ui !== "object" || Array.isArray(raw.ui)) fail('"ui" must map names to component modules');
    for (const [name, file] of Object.entries(raw.ui as Record<string, unknown>)) {
      if (typeof file !== "string" || file.trim() === "") fail(`"ui.${name}" must be a path to a module`);
      if (!/^[\w-]+$/.test(name)) fail(`"ui.${name}": a UI name may hold letters, digits, _ and - only`);
      ui[name] = path.resolve(projectDir, file as string);
    }
  }
  const uiConfig = (raw.ui_config ?? {}) as Record<string, unknown>;
  const shared = uiConfig.shared ?? [];
  if (!Array.isArray(shared) || shared.some((d) => typeof d !== "string")) {
    fail('"ui_config.shared" must be an array of package names');
  }

  const unsupported = Object.keys(raw).filter((key) => !key.startsWith("$") && !KNOWN_KEYS.has(key));
  unsupported.push(...http.unsupported);
  for (const key of Object.keys(uiConfig)) if (key !== "shared") unsupported.push(`ui_config.${key}`);
  if (raw.auth !== undefined && raw.auth !== null) {
    for (const key of Object.keys(raw.auth as object)) if (key !== "path") unsupported.push(`auth.${key}`);
  }

  return {
    configPath,
    projectDir,
    graphs,
    env,
    dependencies: dependencies as string[],
    authPath,
    cors,
    http,
    ui,
    uiShared: shared as string[],
    nodeVersion: (nodeVersion as string | undefined) ?? null,
    unsupported,
  };
}

function parseGraphEntry(
  graphId: string,
  entry: unknown,
  configPath: string,
  fail: (reason: string) => never,
): GraphSpec {
  const projectDir = path.dirname(configPath);
  if (graphId.trim() === "") fail("a graph id is empty");
  let location: unknown = entry;
  let description: string | null = null;
  if (entry !== null && typeof entry === "object" && !Array.isArray(entry)) {
    const obj = entry as Record<string, unknown>;
    location = obj.path;
    if (obj.description !== undefined && typeof obj.description !== "string") {
      fail(`"graphs.${graphId}.description" must be a string`);
    }
    description = (obj.description as string | undefined) ?? null;
  }
  if (typeof location !== "string" || location.trim() === "") {
    fail(`"graphs.${graphId}" must be "./path/to/file.ts:exportName" or {"path": ..., "description": ...}`);
  }
  const spec = location as string;
  const colon = spec.lastIndexOf(":");
  const tail = colon > 0 ? spec.slice(colon + 1) : "";
  const hasExport = colon > 0 && IDENTIFIER.test(tail);
  const file = hasExport ? spec.slice(0, colon) : spec;
  if (!/\.(m|c)?(t|j)sx?$/.test(file)) {
    fail(`"graphs.${graphId}": ${file} is not a JavaScript or TypeScript module`);
  }
  return {
    graphId,
    modulePath: path.resolve(projectDir, file),
    exportName: hasExport ? tail : "default",
    description,
    declared: { configPath, entry: spec },
  };
}

/**
 * Start-up warnings for a project: every key Berth does not act on, and a `node_version` whose
 * major differs from the Node running the server.
 */
export function projectWarnings(project: GraphProjectConfig, runningNode: string): string[] {
  const warnings = project.unsupported.map(
    (key) => `${project.configPath}: key ${key} is not supported by Berth and has no effect`,
  );
  const wanted = project.nodeVersion?.trim().replace(/^v/, "").split(".")[0];
  const running = runningNode.replace(/^v/, "").split(".")[0];
  if (wanted && wanted !== running) {
    warnings.push(
      `${project.configPath}: node_version is ${project.nodeVersion}, but the server runs on Node ${runningNode}`,
    );
  }
  return warnings;
}
