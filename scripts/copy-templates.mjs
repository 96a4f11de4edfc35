#!/usr/bin/env node
// prepack/postpack of @berth-platform/control-plane: its tarball carries the bundled example
// projects (templates/<id>, sources only) that the repository keeps under examples/.
// Run from the package's folder; `--remove` deletes the copy again after packing.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dest = path.join(root, "packages/control-plane/templates");
const TEMPLATES = { "react-agent": "examples/react-agent" };
const SKIPPED = new Set(["node_modules", "dist", ".berth", "tsconfig.tsbuildinfo"]);

fs.rmSync(dest, { recursive: true, force: true });
if (!process.argv.includes("--remove")) {
  for (const [id, from] of Object.entries(TEMPLATES)) {
    fs.cpSync(path.join(root, from), path.join(dest, id), {
      recursive: true,
      filter: (source) => !SKIPPED.has(path.basename(source)),
    });
    // Its tsconfig extends the repository's base, which the package does not carry: inline it.
    const file = path.join(dest, id, "tsconfig.json");
    const config = JSON.parse(fs.readFileSync(file, "utf8"));
    if (typeof config.extends === "string") {
      const base = JSON.parse(fs.readFileSync(path.resolve(root, from, config.extends), "utf8"));
      const { composite, declaration, declarationMap, ...options } = base.compilerOptions ?? {};
      config.compilerOptions = { ...options, ...config.compilerOptions };
      delete config.extends;
      fs.writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
    }
  }
}
