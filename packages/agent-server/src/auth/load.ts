import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { GraphConfigError } from "../graphs/spec.js";
import { type AuthHandlers, CustomAuth } from "./custom-auth.js";

/**
 * Loads `auth.path` ("./src/auth.ts:auth", default export when no name) of a graph project: an
 * `Auth` object of `@langchain/langgraph-sdk/auth`, recognised by its handler cache.
 */
export async function loadCustomAuth(
  configPath: string,
  projectDir: string,
  authPath: string,
): Promise<CustomAuth> {
  const colon = authPath.lastIndexOf(":");
  const hasName = colon > 0 && /^[A-Za-z_$][\w$]*$/.test(authPath.slice(colon + 1));
  const file = path.resolve(projectDir, hasName ? authPath.slice(0, colon) : authPath);
  const name = hasName ? authPath.slice(colon + 1) : "default";
  if (!fs.existsSync(file)) throw new GraphConfigError(configPath, `its auth module ${file} does not exist`);
  const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  const exported = mod[name] as { "~handlerCache"?: AuthHandlers } | undefined;
  const handlers = exported?.["~handlerCache"];
  if (!handlers) {
    throw new GraphConfigError(
      configPath,
      `auth.path ${authPath} is not an Auth object from @langchain/langgraph-sdk/auth`,
    );
  }
  return new CustomAuth(handlers);
}
