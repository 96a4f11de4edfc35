// CLI profiles (issue 28): two `berth up` in one temporary HOME. Each is remembered by its URL with
// the key it issued; the second never takes over the first's commands; a saved key only goes to
// its own URL; another control plane on a remembered URL loses the old key; every refusal names
// the URL and where it came from.
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type net from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempDir, type SpawnedServer, spawnBerth } from "@berth-platform/testkit";
import { jsonLines, runBerth } from "./cli-helpers.js";

const KEY_A = "profiles-key-a-0123456789abcdef0123";
const KEY_B = "profiles-key-b-0123456789abcdef0123";

describe("berth profiles: two control planes in one HOME", () => {
  const home = makeTempDir();
  // HOME decides where profiles live; nothing else points the CLI anywhere.
  const upEnv = { HOME: home.dir, BERTH_CONFIG_DIR: "" };
  const env = { ...upEnv, BERTH_URL: "", BERTH_API_KEY: "", BERTH_PROFILE: "" };
  const berth = (args: string[], extra: Record<string, string> = {}) => runBerth(args, { ...env, ...extra });
  let a: SpawnedServer | undefined;
  let b: SpawnedServer | undefined;
  const up = (name: string, key: string, port = "0") =>
    spawnBerth(
      ["up", "--port", port, "--data-dir", path.join(home.dir, name), "--api-key", key, "--no-runtime"],
      {
        env: upEnv,
      },
    );
  before(async () => {
    a = await up("a", KEY_A);
    b = await up("b", KEY_B);
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    home.cleanup();
  });

  it("remembers both by URL with their keys; the first stays current and the second says so", async () => {
    assert.match(a?.output() ?? "", /CLI: {2}profile 127\.0\.0\.1:\d+ \(current/);
    assert.match(b?.output() ?? "", /profile 127\.0\.0\.1:\d+ saved; another is current \(berth profile use/);
    const file = path.join(home.dir, ".berth", "profiles.json");
    assert.equal(fs.statSync(file).mode & 0o777, 0o600, "the file holding keys is the user's only");
    const list = await berth(["profile", "list", "--json"]);
    assert.equal(list.status, 0, list.stderr);
    const rows = jsonLines(list.stdout);
    assert.deepEqual(
      rows.map((r) => [r.url, r.current, r.key, r.running]).sort(),
      [
        [a?.url, true, "saved", true],
        [b?.url, false, "saved", true],
      ].sort(),
    );
    assert.ok(!list.stdout.includes(KEY_A) && !list.stdout.includes(KEY_B), "keys are never printed");
  });

  it("commands without --url or a key use the current profile; profile use switches", async () => {
    const created = await berth(["workspaces", "create", "only-on-a", "--json"]);
    assert.equal(created.status, 0, created.stderr);
    const onA = await berth(["workspaces", "list", "--json"]);
    assert.deepEqual(
      jsonLines(onA.stdout)
        .map((w) => w.display_name)
        .sort(),
      ["default", "only-on-a"],
    );
    const use = await berth(["profile", "use", b?.url as string]);
    assert.equal(use.status, 0, use.stderr);
    const onB = await berth(["workspaces", "list", "--json"]);
    assert.equal(onB.status, 0, onB.stderr);
    assert.deepEqual(
      jsonLines(onB.stdout).map((w) => w.display_name),
      ["default"],
    );
    // --url of a remembered control plane brings its own key, not the current profile's.
    const byUrl = await berth(["workspaces", "list", "--json", "--url", a?.url as string]);
    assert.equal(byUrl.status, 0, byUrl.stderr);
    assert.equal(jsonLines(byUrl.stdout).length, 2);
    const byName = await berth(["workspaces", "list", "--json", "--profile", new URL(a?.url as string).host]);
    assert.equal(jsonLines(byName.stdout).length, 2, byName.stderr);
  });

  it("never sends a saved key to another URL, and names the URL in every refusal", async () => {
    const seen: (string | undefined)[] = [];
    const spy = http.createServer((req, res) => {
      seen.push(req.headers["x-api-key"] as string | undefined);
      res.writeHead(401, { "content-type": "application/json" }).end('{"detail":"no"}');
    });
    await new Promise<void>((r) => spy.listen(0, "127.0.0.1", r));
    const spyUrl = `http://127.0.0.1:${(spy.address() as net.AddressInfo).port}`;
    try {
      const elsewhere = await berth(["workspaces", "list", "--url", spyUrl]);
      assert.equal(elsewhere.status, 1);
      assert.ok(
        elsewhere.stderr.includes(`an API key is required for the control plane at ${spyUrl}`),
        elsewhere.stderr,
      );
      assert.deepEqual(seen, [], "nothing was sent to a server no saved key belongs to");
      const deploy = await berth(["deploy", path.join(home.dir, "nowhere"), "--url", spyUrl]);
      assert.equal(deploy.status, 1);
      assert.match(deploy.stderr, /API key is required for the control plane at http:\/\/127\.0\.0\.1:\d+/);
      assert.deepEqual(seen, []);
      // An explicit wrong key against the current profile: the refusal names URL and sources.
      const wrong = await berth(["workspaces", "list"], { BERTH_API_KEY: "not-a-key-of-b-0123456789" });
      assert.equal(wrong.status, 1);
      assert.ok(wrong.stderr.includes(`The control plane at ${b?.url}`), wrong.stderr);
      assert.match(
        wrong.stderr,
        /URL from the current profile 127\.0\.0\.1:\d+.*from --api-key\/BERTH_API_KEY/,
      );
      const unknown = await berth(["workspaces", "list", "--profile", "nope"]);
      assert.equal(unknown.status, 1);
      assert.match(unknown.stderr, /no profile 'nope' \(known: /);
    } finally {
      spy.close();
    }
  });

  it("another control plane on a remembered URL does not get the old key; a stopped one is named", async () => {
    const urlA = a?.url as string;
    const port = new URL(urlA).port;
    await a?.stop();
    a = undefined;
    // Its saved key is not sent to whatever may listen at that URL now.
    const stopped = await berth(["workspaces", "list", "--url", urlA]);
    assert.equal(stopped.status, 1);
    assert.ok(
      stopped.stderr.includes(`the berth up that issued the key saved for ${urlA}`) &&
        stopped.stderr.includes("is not running, so the key is not sent there"),
      stopped.stderr,
    );
    // With a key given, the error names the unreachable URL and where it came from.
    const given = await berth(["workspaces", "list", "--url", urlA], { BERTH_API_KEY: KEY_A });
    assert.equal(given.status, 1);
    assert.ok(
      given.stderr.includes(`Cannot reach the control plane at ${urlA}, taken from --url/BERTH_URL`),
      given.stderr,
    );
    // A fresh control plane (another data directory) started without a key on A's port.
    a = await spawnBerth(["up", "--port", port, "--data-dir", path.join(home.dir, "a2"), "--no-runtime"], {
      env: upEnv,
    });
    assert.equal(a.url, urlA);
    const rows = jsonLines((await berth(["profile", "list", "--json"])).stdout);
    const row = rows.find((r) => r.url === urlA);
    // It generated its own admin key: that one is saved, not KEY_A.
    const saved = JSON.parse(fs.readFileSync(path.join(home.dir, ".berth", "profiles.json"), "utf8")) as {
      profiles: Record<string, { api_key?: string }>;
    };
    assert.equal(row?.key, "saved");
    const key = saved.profiles[row?.name as string]?.api_key;
    assert.ok(key && key !== KEY_A && a.output().includes(key), "the new control plane's own key");
    const works = await berth(["workspaces", "list", "--json", "--url", urlA]);
    assert.equal(works.status, 0, works.stderr);
    assert.deepEqual(
      jsonLines(works.stdout).map((w) => w.display_name),
      ["default"],
    );
  });

  it("profile add saves a URL's key and profile remove forgets it", async () => {
    const add = await berth(["profile", "add", "bee", "--url", `${b?.url}/`, "--api-key", KEY_B, "--use"]);
    assert.equal(add.status, 0, add.stderr);
    assert.match(add.stdout, /Saved profile bee .*current/);
    const list = await berth(["profile", "list"]);
    assert.match(list.stdout, /^\*\s+bee\s+http:\/\/127\.0\.0\.1:\d+\s+saved/m);
    const viaBee = await berth(["workspaces", "list", "--json"]);
    assert.equal(viaBee.status, 0, viaBee.stderr);
    const removed = await berth(["profile", "remove", "bee"]);
    assert.equal(removed.status, 0, removed.stderr);
    const bad = await berth(["profile", "add", "x", "--url", "ftp://nope"]);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /an http:\/\/ or https:\/\/ URL/);
  });
});
