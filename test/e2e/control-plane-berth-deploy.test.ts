// `berth deploy` against `berth up`: the fixture project is packed, uploaded, built and served; a
// second deploy of a changed file becomes the active revision behind the same URL, keeping the
// secrets; a broken lock file fails the build with exit status 1.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { repoRoot } from "@berth-platform/testkit";
import { ControlPlaneUnderTest } from "./control-plane-helpers.js";
import { askEcho, copyDeployFixture, run, setGreeting } from "./deploy-helpers.js";

const bin = path.join(repoRoot, "packages/cli/bin/berth.js");
const KEY = "berth-deploy-key-0123456789abcdef";
const plane = new ControlPlaneUnderTest(KEY, ["--no-example"]);
const temp = plane.temp;

function berthDeploy(args: string[], env: NodeJS.ProcessEnv = {}) {
  const clean: NodeJS.ProcessEnv = { ...process.env, ...env };
  if (!("BERTH_API_KEY" in env)) delete clean.BERTH_API_KEY;
  delete clean.BERTH_URL;
  // No saved profiles: the key `berth up` saved for its URL would otherwise be used (cli-profiles.test.ts).
  clean.BERTH_CONFIG_DIR = path.join(temp.dir, "cli-config");
  return run(process.execPath, [bin, "deploy", ...args], { cwd: temp.dir, env: clean, timeoutMs: 240_000 });
}

describe("berth deploy", () => {
  before(async () => {
    await plane.start();
  });
  after(async () => {
    await plane.stop();
    plane.cleanup();
  });

  it("refuses to start without an API key, and --help shows an example", async () => {
    const project = copyDeployFixture(path.join(temp.dir, "no-key"));
    const result = await berthDeploy([project, "--url", plane.url]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /API key is required.*--api-key.*BERTH_API_KEY/);
    const help = await berthDeploy(["--help"]);
    assert.equal(help.code, 0);
    for (const text of [
      "--url",
      "--api-key",
      "--name",
      "--config",
      "--secret",
      "--env-file",
      "--no-wait",
      "--timeout",
    ]) {
      assert.match(help.stdout, new RegExp(text));
    }
    assert.match(help.stdout, /Example:\n(.*\n)*\s+berth deploy \S+/);
  });

  it("deploys a project, then a changed one as a new active revision at the same URL", {
    timeout: 600_000,
  }, async () => {
    const project = copyDeployFixture(path.join(temp.dir, "My_Echo Agent"));
    fs.mkdirSync(path.join(project, "node_modules/junk"), { recursive: true });
    fs.writeFileSync(path.join(project, "node_modules/junk/index.js"), "throw new Error('uploaded');\n");
    fs.writeFileSync(path.join(project, ".env"), "NOT_UPLOADED=1\n");

    const first = await berthDeploy([project, "--url", plane.url, "--secret", "SUFFIX=(secret)"], {
      BERTH_API_KEY: KEY,
    });
    assert.equal(first.code, 0, `${first.stdout}\n${first.stderr}`);
    assert.match(first.stdout, /Packed .*: 5 files, [\d.]+ (B|KiB)/, "node_modules and .env stay behind");
    assert.match(
      first.stdout,
      /Deployment my-echo-agent \([0-9a-f-]{36}\): created/,
      "named after the directory",
    );
    assert.match(first.stdout, /^\s+[\d.]+s {2}BUILDING$/m, "status lines with elapsed seconds");
    assert.match(first.stdout, /^\s+[\d.]+s {2}DEPLOYED$/m);
    assert.match(first.stdout, /^\s+\| \$ npm ci/m, "the build log is streamed");
    const url = first.stdout.match(/URL: +(http\S+)/)?.[1];
    assert.ok(url, first.stdout);
    assert.match(first.stdout, /new Client\(\{ apiUrl: /);
    // And LangGraph Studio on it (its base URL carries a signed grant: Studio sends no Berth key).
    const studio = first.stdout.match(/Studio: +(https:\S+)/)?.[1];
    assert.ok(studio, first.stdout);
    assert.match(new URL(studio).searchParams.get("baseUrl") ?? "", new RegExp(`^${plane.url}/studio/s1\\.`));
    assert.equal(await askEcho(url, KEY, "hello"), "v1: hello (secret)");

    const id = url.split("/").at(-1) ?? "";
    const was = await plane.get(`/v2/deployments/${id}`);
    assert.equal((was.source_config as { custom_url: string }).custom_url, url);

    setGreeting(project, "v2");
    const second = await berthDeploy([project, "--url", plane.url, "--api-key", KEY]);
    assert.equal(second.code, 0, `${second.stdout}\n${second.stderr}`);
    assert.match(second.stdout, new RegExp(`Deployment my-echo-agent \\(${id}\\): adding a revision`));
    assert.equal(second.stdout.match(/URL: +(http\S+)/)?.[1], url, "the URL stays the same");
    assert.equal(await askEcho(url, KEY, "hello"), "v2: hello (secret)", "new code, secrets carried over");

    const now = await plane.get(`/v2/deployments/${id}`);
    assert.notEqual(now.active_revision_id, was.active_revision_id);
    assert.equal(now.active_revision_id, now.latest_revision_id);
    const revisions = (await plane.get(`/v2/deployments/${id}/revisions`)).resources as Array<{
      status: string;
    }>;
    assert.deepEqual(
      revisions.map((r) => r.status),
      ["DEPLOYED", "DEPLOYED", "SKIPPED"],
      "two deployed revisions (the newest is active) and the create's empty one",
    );
  });

  it("a failing build exits 1 and says why", { timeout: 300_000 }, async () => {
    const project = copyDeployFixture(path.join(temp.dir, "broken"));
    const lock = JSON.parse(fs.readFileSync(path.join(project, "package-lock.json"), "utf8")) as {
      packages: Record<string, unknown>;
    };
    lock.packages = { "": lock.packages[""] };
    fs.writeFileSync(path.join(project, "package-lock.json"), JSON.stringify(lock));
    const result = await berthDeploy([project, "--url", plane.url, "--api-key", KEY, "--name", "broken"]);
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stdout, /^\s+[\d.]+s {2}BUILD_FAILED$/m);
    assert.match(result.stdout, /Revision BUILD_FAILED: The install command failed/);
    assert.match(result.stdout, /Full logs: GET .*\/logs\?type=build/);
  });

  it("a refused request prints the server's detail", async () => {
    const project = copyDeployFixture(path.join(temp.dir, "refused"));
    const result = await berthDeploy([
      project,
      "--url",
      plane.url,
      "--api-key",
      KEY,
      "--secret",
      "LANGSMITH_PROJECT=mine",
    ]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /failed with 400: .*LANGSMITH_PROJECT.*reserved/);
    const wrongKey = await berthDeploy([project, "--url", plane.url, "--api-key", "berth_wrong_key"]);
    assert.equal(wrongKey.code, 1);
    assert.match(wrongKey.stderr, /failed with 401: .*--api-key or BERTH_API_KEY/);
  });
});
