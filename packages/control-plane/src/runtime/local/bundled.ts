import path from "node:path";
import { fileURLToPath } from "node:url";
import { TemplateCatalog } from "./templates.js";

/**
 * The templates of this Berth installation: its example projects, whose dependencies are Berth's
 * own workspace dependencies (the repository's node_modules).
 */
export function bundledTemplates(): TemplateCatalog {
  // dist/runtime/local/bundled.js (or src/… under tsx) → the repository root, five levels up.
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../..");
  return new TemplateCatalog(
    [
      {
        id: "react-agent",
        name: "ReAct agent",
        description:
          "A ReAct agent with weather, calculator and word-count tools, a human-in-the-loop review graph and an echo graph; runs offline on a scripted model, or on OpenAI when OPENAI_API_KEY is set.",
        directory: path.join(root, "examples", "react-agent"),
      },
    ],
    path.join(root, "node_modules"),
  );
}
