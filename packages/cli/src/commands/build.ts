import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { packBerthPackages } from "../image/pack-berth.js";

/** Container engines `berth build` drives when one is on PATH, in order of preference. */
const ENGINES = ["docker", "podman"] as const;

/** An engine counts only when its daemon answers (`info`): a client without a daemon cannot build. */
function findEngine(): string | undefined {
  return ENGINES.find(
    (engine) => spawnSync(engine, ["info"], { stdio: "ignore", timeout: 15_000 }).status === 0,
  );
}

/** Writes the Dockerfile of a Berth agent server image into DIR; builds it when an engine exists. */
export async function runBuild(dir: string, flags: { tag: string; config?: string }): Promise<number> {
  // Loaded here, not at start-up: `berth --help` must not pay for the listener package.
  const { IMAGE_PACKAGES_DIR, renderDockerfile } = await import("@berth-platform/listener");
  const root = path.resolve(dir);
  const config =
    flags.config ?? ["graph.json", "langgraph.json"].find((f) => fs.existsSync(path.join(root, f)));
  if (!config || !fs.existsSync(path.join(root, config))) {
    process.stderr.write(`No graph configuration (graph.json or langgraph.json) in ${root}.\n`);
    return 1;
  }
  const packagesDir = path.join(root, IMAGE_PACKAGES_DIR);
  process.stdout.write(`Packing Berth's packages into ${packagesDir} …\n`);
  try {
    const tarballs = packBerthPackages(packagesDir);
    process.stdout.write(`Packed ${tarballs.length} packages: ${tarballs.join(", ")}\n`);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 1;
  }
  const dockerfile = path.join(root, "Dockerfile");
  fs.writeFileSync(dockerfile, renderDockerfile({ configFile: config }));
  process.stdout.write(`Wrote ${dockerfile}\n`);
  const engine = findEngine();
  if (!engine) {
    process.stdout.write(
      `No running container engine (docker or podman) found: the image was not built. Build it with\n  docker build -t ${flags.tag} ${root}\n`,
    );
    return 0;
  }
  // Arguments go to the engine as an array: no shell sees the tag or the path.
  const result = spawnSync(engine, ["build", "-t", flags.tag, root], { stdio: "inherit" });
  return result.status ?? 1;
}

/** Registers `berth build [DIR] --tag IMAGE`. */
export function registerBuildCommand(program: Command): void {
  program
    .command("build")
    .description(
      "Write the Dockerfile of a Berth agent server image for a graph project (with Berth's packages packed beside it in .berth-image/); build it with docker/podman when present.",
    )
    .argument("[dir]", "graph project directory", ".")
    .requiredOption("-t, --tag <image>", "image name and tag, e.g. registry.example.com/team/agent:1.0.0")
    .option(
      "-c, --config <file>",
      "graph configuration file in DIR (default: graph.json, else langgraph.json)",
    )
    .action(async (dir: string, flags: { tag: string; config?: string }) => {
      process.exitCode = await runBuild(dir, flags);
    });
}
