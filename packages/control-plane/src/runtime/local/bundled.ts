import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { TemplateCatalog } from "./templates.js";

/** The node_modules folder nearest above `dir` that holds `name` (where Node would find it). */
function modulesDirWith(dir: string, name: string): string | undefined {
  for (let at = dir; ; at = path.dirname(at)) {
    const candidate = path.join(at, "node_modules");
    if (fs.existsSync(path.join(candidate, name))) return candidate;
    if (path.dirname(at) === at) return undefined;
  }
}

/**
 * The templates of this Berth installation: its example projects, whose dependencies are Berth's
 * own dependencies. In the repository they are examples/ and its node_modules; in an installed
 * package (npm pack copies them in) they are the package's templates/ and the node_modules its
 * dependencies were installed into.
 */
export function bundledTemplates(): TemplateCatalog {
  // dist/runtime/local/bundled.js (or src/… under tsx) → the package folder, three levels up.
  const here = path.dirname(fileURLToPath(import.meta.url));
  const packageDir = path.resolve(here, "../../..");
  const packed = path.join(packageDir, "templates");
  const repoRoot = path.resolve(packageDir, "../..");
  const templatesDir = fs.existsSync(packed) ? packed : path.join(repoRoot, "examples");
  const modulesDir =
    modulesDirWith(packageDir, "@langchain/langgraph") ?? path.join(repoRoot, "node_modules");
  return new TemplateCatalog(
    [
      {
        id: "react-agent",
        name: "ReAct agent",
        description:
          "A ReAct agent with weather, calculator and word-count tools, a human-in-the-loop review graph and an echo graph; runs offline on a scripted model, or on OpenAI when OPENAI_API_KEY is set.",
        directory: path.join(templatesDir, "react-agent"),
      },
    ],
    modulesDir,
  );
}
