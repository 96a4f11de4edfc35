// The bubblewrap sandbox without workspace users (BERTH_WORKSPACE_USERS=off, or a non-root
// operator): the system, the operator's HOME and npm cache are read-only in there, so a build's
// `npm ci --prefer-offline` needs a writable cache of the workspace's own. Here the operator's
// cache is empty: every package must be fetched and written, which failed with EROFS before each
// workspace got a private HOME.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ControlPlaneUnderTest } from "./control-plane-helpers.js";
import { askEcho, DEPLOY_FIXTURE } from "./deploy-helpers.js";

const KEY = "sandbox-home-key-0123456789abcdef";

/** Why the suite cannot run here, or null: it needs a bubblewrap that can start a sandbox. */
function missingSandbox(): string | null {
  const probe = spawnSync(
    "bwrap",
    ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--", "/bin/true"],
    { stdio: "ignore", timeout: 10_000 },
  );
  if (probe.error) return "bubblewrap (bwrap) is not installed (apt-get install bubblewrap)";
  return probe.status === 0 ? null : "bubblewrap cannot start a sandbox here (user namespaces off?)";
}

const skip = missingSandbox();
if (skip) console.log(`# security-sandbox-home: skipped, ${skip}`);

describe("local runtime: the sandbox without workspace users gives each workspace a writable HOME", {
  skip: skip ?? false,
}, () => {
  // Outside /tmp: the sandbox's private /tmp would hide a cache there and let npm write to the
  // tmpfs instead, which is not what an operator's ~/.npm is.
  let operatorCache = "";
  let plane: ControlPlaneUnderTest;

  before(async () => {
    operatorCache = fs.mkdtempSync(path.join("/var/tmp", "berth-operator-npm-"));
    plane = new ControlPlaneUnderTest(KEY, ["--no-example"], {
      BERTH_WORKSPACE_USERS: "off",
      BERTH_SANDBOX: "on",
      npm_config_cache: operatorCache,
    });
    await plane.start();
  });
  after(async () => {
    await plane?.stop();
    plane?.cleanup();
    if (operatorCache) fs.rmSync(operatorCache, { recursive: true, force: true });
  });

  it("npm ci fills a cache of the workspace's own and the revision deploys; the operator's cache is untouched", {
    timeout: 400_000,
  }, async () => {
    // The lock file's install command (npm ci --prefer-offline), not the tests' usual symlink.
    const deployment = await plane.deploySource("sandbox-home", {
      dir: DEPLOY_FIXTURE,
      installCommand: null,
    });
    await plane.waitFor(deployment.id, deployment.latest_revision_id, ["DEPLOYED"], 300_000);
    const logs = await plane.logText(deployment.id, deployment.latest_revision_id, "build");
    assert.match(logs, /npm ci/, "the lock file's install ran");
    assert.doesNotMatch(logs, /EROFS/);
    assert.deepEqual(fs.readdirSync(operatorCache), [], "the build wrote nothing to the operator's cache");
    assert.equal(await askEcho(`${plane.url}/agents/${deployment.id}`, KEY, "hello"), "v1: hello");
  });
});
