import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SCOPE = "@berth-platform/";

/** The folder holding the package.json named `name`, walking up from `file`. */
function packageDirOf(file: string, name: string): string {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (fs.existsSync(manifest) && JSON.parse(fs.readFileSync(manifest, "utf8")).name === name) return dir;
    if (path.dirname(dir) === dir) throw new Error(`Cannot find the folder of ${name} above ${file}.`);
  }
}

/** This CLI's package and every Berth package it depends on, directly or not: name → folder. */
export function berthPackageDirs(): Map<string, string> {
  const cliDir = packageDirOf(fileURLToPath(import.meta.url), `${SCOPE}cli`);
  const found = new Map<string, string>([[`${SCOPE}cli`, cliDir]]);
  const pending = [cliDir];
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
    };
    const require = createRequire(path.join(dir, "package.json"));
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      if (!name.startsWith(SCOPE) || found.has(name)) continue;
      const depDir = packageDirOf(require.resolve(name), name);
      found.set(name, depDir);
      pending.push(depDir);
    }
  }
  return found;
}

/**
 * Packs Berth's own packages (`npm pack`, arguments as an array) into `dest`, replacing what an
 * earlier build left there, so an image can install Berth without a registry that has it.
 * Returns the tarballs' file names.
 */
export function packBerthPackages(dest: string): string[] {
  fs.rmSync(dest, { recursive: true, force: true });
  fs.mkdirSync(dest, { recursive: true });
  const names: string[] = [];
  for (const [name, dir] of berthPackageDirs()) {
    const result = spawnSync("npm", ["pack", dir, "--pack-destination", dest, "--silent"], {
      encoding: "utf8",
      timeout: 120_000,
    });
    if (result.status !== 0) throw new Error(`npm pack of ${name} failed: ${result.stderr.trim()}`);
    const file = result.stdout.trim().split("\n").pop()?.trim();
    if (!file || !fs.existsSync(path.join(dest, file)))
      throw new Error(`npm pack of ${name} wrote no tarball.`);
    names.push(file);
  }
  return names.sort();
}
