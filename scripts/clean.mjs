// Removes every package's build output (dist/ and tsc's build info), so the next `npm run build`
// starts clean: `tsc -b` never deletes the output of a source file that was moved or removed, and
// `npm pack` would ship it.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const packages = path.join(root, "packages");
for (const name of fs.readdirSync(packages)) {
  for (const output of ["dist", "tsconfig.tsbuildinfo"]) {
    fs.rmSync(path.join(packages, name, output), { recursive: true, force: true });
  }
}
