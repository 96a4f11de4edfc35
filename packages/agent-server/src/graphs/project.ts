import fs from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";
import { GraphConfigError, type GraphProjectConfig, parseGraphConfig } from "./spec.js";

/** File names a graph configuration may have, in order of preference. */
export const GRAPH_CONFIG_NAMES = ["graph.json", "langgraph.json"];

/**
 * Reads a graph configuration file. A path naming a directory, or a missing graph.json beside an
 * existing langgraph.json, finds the file that is there.
 */
export function readGraphProject(configPath: string): GraphProjectConfig {
  let file = configPath;
  if (fs.existsSync(file) && fs.statSync(file).isDirectory())
    file = path.join(file, GRAPH_CONFIG_NAMES[0] ?? "");
  if (!fs.existsSync(file)) {
    const dir = path.dirname(file);
    const found = GRAPH_CONFIG_NAMES.map((name) => path.join(dir, name)).find((p) => fs.existsSync(p));
    if (!found || path.basename(file) !== GRAPH_CONFIG_NAMES[0]) {
      throw new GraphConfigError(file, "the file does not exist (pass --config path/to/graph.json)");
    }
    file = found;
  }
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw new GraphConfigError(file, `it is not valid JSON (${(error as Error).message})`);
  }
  return parseGraphConfig(json, file);
}

/** The variables a project's `env` names (inline, or read from its env file). */
export function readProjectEnv(project: GraphProjectConfig): Record<string, string> {
  if (project.env.kind === "none") return {};
  if (project.env.kind === "inline") return project.env.values;
  if (!fs.existsSync(project.env.path)) {
    throw new GraphConfigError(project.configPath, `its env file ${project.env.path} does not exist`);
  }
  return parseEnv(fs.readFileSync(project.env.path, "utf8")) as Record<string, string>;
}
