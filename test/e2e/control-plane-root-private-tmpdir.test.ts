// `berth up` as root on a machine without bubblewrap and with a private TMPDIR (containers,
// systemd units with PrivateTmp, CI runners): builds and agent servers run as the workspace's own
// user, who cannot write the operator's TMPDIR. The example agent must still end DEPLOYED (issue 28).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { closedAncestor } from "@berth-platform/control-plane";
import { makeTempDir, repoRoot } from "@berth-platform/testkit";
import { ControlPlaneUnderTest } from "./control-plane-helpers.js";

const KEY = "e2e-root-private-tmpdir-key-0123456789";
const asRoot = process.getuid?.() === 0;
// Workspace users run Berth's agent server from the checkout: one under a closed directory cannot be
// run by them without the sandbox (security-isolation checks that Berth then refuses or warns).
const closed = closedAncestor(repoRoot);

/** A PATH with every program of `dirs` except bubblewrap (links in `into`), so Berth finds none. */
function pathWithoutBwrap(into: string, dirs: string[]): string {
  fs.mkdirSync(into, { recursive: true });
  for (const dir of dirs) {
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir)) {
      const link = path.join(into, name);
      if (name !== "bwrap" && !fs.existsSync(link)) fs.symlinkSync(path.join(dir, name), link);
    }
  }
  return into;
}

describe("berth up as root, without bubblewrap, with a private TMPDIR", {
  skip: !asRoot
    ? "needs root (workspace users)"
    : closed
      ? `the checkout is under ${closed}, closed to workspace users (no o+x)`
      : false,
  timeout: 600_000,
}, () => {
  const temp = makeTempDir("berth-private-tmp-");
  // The operator's own temporary directory: nobody else may enter it.
  const privateTmp = path.join(temp.dir, "operator-tmp");
  fs.mkdirSync(privateTmp, { mode: 0o700 });
  const PATH = pathWithoutBwrap(path.join(temp.dir, "bin"), [
    "/usr/local/bin",
    "/usr/bin",
    "/usr/sbin",
    "/bin",
    "/sbin",
  ]);
  const cp = new ControlPlaneUnderTest(KEY, [], { PATH, TMPDIR: privateTmp, BERTH_WORKSPACE_USERS: "on" });

  before(async () => {
    // Workspace users reach their deployment's directory through the data directory's parents
    // (as in a checkout, where `npm start` keeps it); only the operator's TMPDIR is private.
    fs.chmodSync(cp.temp.dir, 0o711);
    await cp.start();
  });
  after(async () => {
    await cp.stop();
    cp.cleanup();
    temp.cleanup();
  });

  it("the example agent ends DEPLOYED and answers", async () => {
    const [example] = (await cp.get("/v2/deployments?name=example-agent")).resources;
    assert.ok(example, "berth up created example-agent");
    const revision = await cp.waitFor(example.id, example.latest_revision_id, undefined, 480_000);
    const logs = await cp.logText(example.id, revision.id);
    assert.equal(revision.status, "DEPLOYED", logs);
    assert.match(logs, /as workspace user \d+, without a sandbox/);
    const ok = await fetch(`${cp.url}/agents/${example.id}/ok`, { headers: { "X-Api-Key": KEY } });
    assert.equal(ok.status, 200);
  });
});
