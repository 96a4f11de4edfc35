import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { BENCH_DIR, EXAMPLE_DIR, EXAMPLE_GRAPH_CONFIG } from "./workload.js";

/** The peer lives apart: langgraph-api 2.0.0 needs langgraph-checkpoint ~1.0, Berth's langgraph needs ^1.2. */
export const PEER_DIR = path.join(BENCH_DIR, "peer");
const PEER_MODULES = path.join(PEER_DIR, "node_modules");
/** Generated at every run (a fresh in-memory store each time), never committed. */
export const PEER_PROJECT_DIR = path.join(PEER_DIR, "project");

const INSTALL_TIMEOUT_MS = 10 * 60_000;

export function peerCliPath(): string {
  return path.join(PEER_MODULES, "@langchain", "langgraph-cli", "dist", "cli", "cli.mjs");
}

function installedVersion(name: string): string | undefined {
  try {
    const file = path.join(PEER_MODULES, ...name.split("/"), "package.json");
    return (JSON.parse(fs.readFileSync(file, "utf8")) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** Versions the peer folder declares, so the report shows what was actually compared. */
export function peerVersions(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [
    "@langchain/langgraph-api",
    "@langchain/langgraph-cli",
    "@langchain/langgraph",
    "@langchain/langgraph-checkpoint",
    "@langchain/core",
  ]) {
    out[name] = installedVersion(name) ?? "missing";
  }
  return out;
}

function declaredVersions(): Record<string, string> {
  const manifest = JSON.parse(fs.readFileSync(path.join(PEER_DIR, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  return manifest.dependencies ?? {};
}

/** Installed when every declared dependency is present at its pinned version. */
function isInstalled(): boolean {
  if (!fs.existsSync(peerCliPath())) return false;
  return Object.entries(declaredVersions()).every(([name, version]) => installedVersion(name) === version);
}

function npm(args: string[], progress: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const command = process.platform === "win32" ? "npm.cmd" : "npm";
    const child = spawn(command, args, { cwd: PEER_DIR, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-4_000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const timer = setTimeout(() => child.kill("SIGKILL"), INSTALL_TIMEOUT_MS);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else {
        // npm ends with its own summary ("npm error …"): the last lines say what went wrong.
        const tail = output
          .split("\n")
          .map((line) => line.trim())
          .filter((line) => line !== "" && !line.startsWith("npm warn"))
          .slice(-3)
          .join(" | ");
        reject(new Error(`npm ${args[0]} failed (exit ${code}): ${tail || "no output"}`));
      }
    });
    progress(`peer: npm ${args.join(" ")} in ${path.relative(process.cwd(), PEER_DIR) || "."}`);
  });
}

/**
 * Installs the official server into peer/ on first use, at the versions of the committed lockfile.
 * `npm install --no-save` rather than `npm ci`: the lockfile lacks some of tailwind's per-platform
 * optional binaries (pulled in by langgraph-ui, unused here) that the registry it was made against
 * did not carry, and `npm ci` refuses such a lockfile while `npm install` honours it unchanged.
 */
export async function ensurePeerInstalled(progress: (line: string) => void): Promise<void> {
  if (isInstalled()) return;
  await npm(["install", "--no-save", "--no-audit", "--no-fund", "--loglevel=error"], progress);
  if (!isInstalled())
    throw new Error("peer install finished but the pinned versions are not in peer/node_modules");
}

/**
 * Copies the example's graph sources into peer/project so their imports resolve to the peer's own
 * langgraph and core, and writes a langgraph.json naming the same graphs as the example's graph.json.
 * Starting from an empty folder also drops the peer's persisted in-memory store of a previous run.
 */
export function preparePeerProject(): string {
  fs.rmSync(PEER_PROJECT_DIR, { recursive: true, force: true });
  const srcOut = path.join(PEER_PROJECT_DIR, "src");
  fs.mkdirSync(srcOut, { recursive: true });
  const srcIn = path.join(EXAMPLE_DIR, "src");
  for (const file of fs.readdirSync(srcIn)) {
    if (file.endsWith(".ts")) fs.copyFileSync(path.join(srcIn, file), path.join(srcOut, file));
  }
  const example = JSON.parse(fs.readFileSync(EXAMPLE_GRAPH_CONFIG, "utf8")) as { graphs?: unknown };
  const config = { node_version: "20", graphs: example.graphs, env: {}, dependencies: ["."] };
  const configPath = path.join(PEER_PROJECT_DIR, "langgraph.json");
  fs.writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`);
  // The sources are ESM (`import … from "./tools.js"`), as in the example package.
  fs.writeFileSync(
    path.join(PEER_PROJECT_DIR, "package.json"),
    `${JSON.stringify({ name: "berth-bench-peer-project", private: true, type: "module" }, null, 2)}\n`,
  );
  return configPath;
}
