// The real `langgraphjs deploy --remote` (@langchain/langgraph-cli) against `berth up`: it packs the
// fixture project, uploads it, and waits for DEPLOYED; the official SDK then runs the graph at the
// URL it printed. A second deploy of a changed file finds the deployment by name and replaces the
// running revision behind the same URL.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { repoRoot } from "@berth-platform/testkit";
import { ControlPlaneUnderTest } from "./control-plane-helpers.js";
import { askEcho, copyDeployFixture, type Finished, run, setGreeting } from "./deploy-helpers.js";

const KEY = "langgraphjs-deploy-key-0123456789";
const NAME = "official-cli-agent";
const plane = new ControlPlaneUnderTest(KEY, ["--no-example"]);
const temp = plane.temp;

/** The official CLI's version under test (`langgraphjs deploy` of langgraph-cli 1.5.x). */
const CLI_VERSION = "1.5.1";
/**
 * Where the test installs the official CLI. It is not a dependency of the repository: its UI
 * bundler pulls platform binaries this registry lacks, so a lock file with it fails `npm ci`;
 * `npm install` of it alone skips them, as any user's install would.
 */
const CLI_PREFIX = path.join(repoRoot, ".berth/cache", `langgraph-cli-${CLI_VERSION}`);

/** Installs the official CLI once (kept between runs; about 20 s with a warm npm cache). */
function installOfficialCli(): void {
  if (fs.existsSync(path.join(CLI_PREFIX, "node_modules/@langchain/langgraph-cli/package.json"))) return;
  fs.mkdirSync(CLI_PREFIX, { recursive: true });
  fs.writeFileSync(path.join(CLI_PREFIX, "package.json"), '{"private":true}\n');
  const npm = spawnSync(
    "npm",
    ["install", "--no-audit", "--no-fund", "--loglevel=error", `@langchain/langgraph-cli@${CLI_VERSION}`],
    { cwd: CLI_PREFIX, encoding: "utf8", timeout: 300_000 },
  );
  assert.equal(npm.status, 0, `npm install of the official CLI failed:\n${npm.stdout}\n${npm.stderr}`);
}

/** The official CLI's entry point, from its package.json `bin`. */
function officialCli(): string {
  const dir = path.join(CLI_PREFIX, "node_modules/@langchain/langgraph-cli");
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as {
    bin: Record<string, string>;
  };
  const bin = pkg.bin.langgraphjs;
  assert.ok(bin, "@langchain/langgraph-cli has a langgraphjs bin");
  return path.join(dir, bin);
}

/** The environment of the CLI: non-interactive, no telemetry, no LangSmith credentials of the host. */
function cliEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CI: "true",
    NO_COLOR: "1",
    LANGGRAPH_CLI_NO_ANALYTICS: "1",
  };
  for (const name of [
    "LANGGRAPH_HOST_API_KEY",
    "LANGSMITH_API_KEY",
    "LANGCHAIN_API_KEY",
    "LANGSMITH_TENANT_ID",
    "LANGSMITH_DEPLOYMENT_NAME",
    "LANGSMITH_ENDPOINT",
  ]) {
    delete env[name];
  }
  return env;
}

/** `langgraphjs deploy --remote` of `project` to the Berth control plane, JSON-lines output. */
function deploy(project: string): Promise<Finished> {
  return run(
    process.execPath,
    [
      officialCli(),
      "deploy",
      "--config",
      path.join(project, "graph.json"),
      "--host-url",
      plane.url,
      "--api-key",
      KEY,
      "--name",
      NAME,
      "--remote",
      "--no-input",
      "--json",
      "--verbose",
    ],
    { cwd: project, env: cliEnv(), timeoutMs: 240_000 },
  );
}

type Event = { event: string; status?: string; url?: string; deployment_id?: string; message?: string };

function events(result: Finished): Event[] {
  return result.stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Event);
}

describe("langgraphjs deploy --remote against berth up", () => {
  before(async () => {
    installOfficialCli();
    await plane.start();
  });
  after(async () => {
    await plane.stop();
    plane.cleanup();
  });

  it("deploys the project, and a second deploy replaces the revision behind the same URL", {
    timeout: 600_000,
  }, async () => {
    const project = copyDeployFixture(path.join(temp.dir, "project"));

    const first = await deploy(project);
    const output = `${first.stdout}\n${first.stderr}`;
    assert.equal(first.code, 0, output);
    const firstEvents = events(first);
    const result = firstEvents.find((e) => e.event === "result");
    assert.equal(result?.status, "succeeded", output);
    const id = String(result?.deployment_id);
    assert.equal(result?.url, `${plane.url}/agents/${id}`, "custom_url is the control plane's agent URL");
    assert.ok(
      firstEvents.some((e) => e.event === "status_change"),
      "it followed the revision through its statuses",
    );
    assert.equal(await askEcho(String(result?.url), KEY, "hello"), "v1: hello");

    const deployment = await plane.get(`/v2/deployments/${id}`);
    assert.equal(deployment.name, NAME);
    assert.equal(deployment.source, "internal_source");
    const revisions = (await plane.get(`/v2/deployments/${id}/revisions`)).resources as Array<{
      id: string;
      status: string;
      source_revision_config: { graph_config_path: string | null };
    }>;
    assert.deepEqual(
      revisions.map((r) => r.status),
      ["DEPLOYED", "SKIPPED"],
      "the empty revision of the create is superseded by the PATCH's",
    );
    assert.equal(revisions[0]?.source_revision_config.graph_config_path, "graph.json");
    assert.equal(deployment.active_revision_id, revisions[0]?.id);
    // The SKIPPED revision's log says what it waited for and which revision superseded it.
    const skippedLog = await plane.logText(id, String(revisions[1]?.id), "build");
    assert.match(skippedLog, /Waiting for the source archive/);
    assert.match(skippedLog, new RegExp(`SKIPPED: revision ${revisions[0]?.id} was made`));

    setGreeting(project, "v2");
    const second = await deploy(project);
    assert.equal(second.code, 0, `${second.stdout}\n${second.stderr}`);
    const secondEvents = events(second);
    assert.ok(
      secondEvents.some((e) => e.event === "info" && /Found existing deployment/.test(e.message ?? "")),
      second.stdout,
    );
    const again = secondEvents.find((e) => e.event === "result");
    assert.equal(again?.status, "succeeded", second.stdout);
    assert.equal(again?.url, result?.url, "the URL stays the same");
    assert.equal(await askEcho(String(again?.url), KEY, "hello"), "v2: hello");
    const updated = await plane.get(`/v2/deployments/${id}`);
    assert.notEqual(updated.active_revision_id, deployment.active_revision_id);
    assert.equal(updated.active_revision_id, updated.latest_revision_id);
  });
});
