import fs from "node:fs";
import path from "node:path";

/** A project bundled with Berth that an `internal_template` deployment runs. */
export interface Template {
  id: string;
  name: string;
  description: string;
  /** The project's directory in the Berth installation. */
  directory: string;
  /** Its graph configuration, relative to the directory. */
  graph_config_path: string;
  /** Graphs it serves (from the graph configuration). */
  graphs: string[];
}

/** Files of a template that are build output or installs, never copied. */
const SKIPPED = new Set(["node_modules", "dist", ".berth", "tsconfig.tsbuildinfo"]);

/**
 * The templates this installation bundles. Their dependencies are Berth's own (installed with
 * it), so a template build links them instead of installing from the registry.
 */
export class TemplateCatalog {
  readonly #templates: Map<string, Template>;

  /**
   * @param entries id → directory and description of each bundled project
   * @param modulesDir the node_modules directory that holds the templates' dependencies
   */
  constructor(
    entries: ReadonlyArray<{ id: string; name: string; description: string; directory: string }>,
    readonly modulesDir: string,
  ) {
    this.#templates = new Map(
      entries
        .filter((e) => fs.existsSync(path.join(e.directory, "graph.json")))
        .map((e) => [e.id, { ...e, graph_config_path: "graph.json", graphs: graphIds(e.directory) }]),
    );
  }

  /** Every template, by id. */
  list(): Template[] {
    return [...this.#templates.values()];
  }

  /** The template `id`, if bundled. */
  find(id: string): Template | undefined {
    return this.#templates.get(id);
  }

  /** Copies template `id`'s sources into `dest` and links its dependencies there. */
  copy(id: string, dest: string): void {
    const template = this.#templates.get(id);
    if (!template) throw new Error(`Unknown template ${id}`);
    fs.cpSync(template.directory, dest, {
      recursive: true,
      filter: (source) => !SKIPPED.has(path.basename(source)),
    });
    fs.symlinkSync(this.modulesDir, path.join(dest, "node_modules"), "dir");
  }
}

function graphIds(directory: string): string[] {
  try {
    const config = JSON.parse(fs.readFileSync(path.join(directory, "graph.json"), "utf8")) as {
      graphs?: object;
    };
    return Object.keys(config.graphs ?? {});
  } catch {
    return [];
  }
}
