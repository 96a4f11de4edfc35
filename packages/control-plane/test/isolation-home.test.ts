// The private HOME of a workspace sandboxed without a user of its own, on a real data directory:
// where it lives, its modes, and its npm cache seeded by copy (never by hard links, since the
// workspace runs as the operator's uid and could write through a link into the operator's cache).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, beforeEach, describe, it } from "node:test";
import { makeTempDir } from "@berth-platform/testkit";
import { WorkspaceIsolation } from "../src/runtime/local/isolation.js";

const temp = makeTempDir("berth-isolation-home-");
after(() => temp.cleanup());

const CONTENT = path.join("content-v2", "sha512", "ab", "cd", "0123");
const INDEX = path.join("index-v5", "12", "34", "5678");

/** An operator npm cache with one package: an index entry, its content, and npm's scratch file. */
function operatorCache(dir: string): string {
  const cacache = path.join(dir, "_cacache");
  for (const [rel, text] of [
    [CONTENT, "tarball bytes"],
    [INDEX, "index line\n"],
    [path.join("tmp", "half-written"), "x"],
  ] as const) {
    fs.mkdirSync(path.dirname(path.join(cacache, rel)), { recursive: true });
    fs.writeFileSync(path.join(cacache, rel), text);
  }
  return dir;
}

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

describe("WorkspaceIsolation: a private HOME without workspace users", () => {
  let dataDir = "";
  let seed = "";
  let counter = 0;
  beforeEach(() => {
    counter += 1;
    dataDir = path.join(temp.dir, `data-${counter}`);
    fs.mkdirSync(dataDir, { mode: 0o700 });
    seed = operatorCache(path.join(temp.dir, `npm-${counter}`));
  });
  const isolation = (bwrapPath: string | null) =>
    new WorkspaceIsolation({
      dataDir,
      workspaceUsers: false,
      uidBase: 200000,
      bwrapPath,
      setprivPath: null,
      npmCacheSeed: seed,
    });

  it("lives in the data directory under a hash of the tenant id, 0700 all the way", () => {
    const iso = isolation("/usr/bin/bwrap");
    const a = iso.workspace("tenant-a");
    assert.equal(a.identity, null);
    assert.ok(a.home);
    assert.match(path.relative(dataDir, a.home), /^workspaces\/tenant-[0-9a-f]{32}\/home$/);
    for (const dir of [a.home, path.dirname(a.home), path.join(dataDir, "workspaces")]) {
      assert.equal(modeOf(dir), 0o700, dir);
    }
    assert.equal(iso.workspace("tenant-a").home, a.home, "the same tenant, the same HOME");
    assert.notEqual(iso.workspace("tenant-b").home, a.home);
    // An id shaped like a path names nothing but its hash.
    for (const tricky of ["../../etc", "/root", "a/../../b", ""]) {
      const home = iso.workspace(tricky).home ?? "";
      assert.match(path.relative(dataDir, home), /^workspaces\/tenant-[0-9a-f]{32}\/home$/, tricky);
    }
    iso.protectDataDir();
    assert.equal(modeOf(path.join(dataDir, "workspaces")), 0o700, "protectDataDir keeps it closed");
  });

  it("is seeded once with copies of the operator's cache, none of them a link to it", async () => {
    const iso = isolation("/usr/bin/bwrap");
    const home = iso.workspace("tenant-a").home ?? "";
    const [first, concurrent] = await Promise.all([iso.seedHome("tenant-a"), iso.seedHome("tenant-a")]);
    assert.deepEqual(first, { files: 2, bytes: "tarball bytes".length + "index line\n".length });
    assert.equal(concurrent, first, "concurrent builds wait for the same seed");
    const cacache = path.join(home, ".npm", "_cacache");
    assert.equal(fs.readFileSync(path.join(cacache, CONTENT), "utf8"), "tarball bytes");
    assert.equal(fs.readFileSync(path.join(cacache, INDEX), "utf8"), "index line\n");
    assert.ok(!fs.existsSync(path.join(cacache, "tmp")), "npm's scratch files stay behind");
    const copy = fs.statSync(path.join(cacache, CONTENT));
    const original = fs.statSync(path.join(seed, "_cacache", CONTENT));
    assert.notEqual(copy.ino, original.ino, "a copy, not a hard link");
    assert.equal(original.nlink, 1);
    // The workspace writes its copy; the operator's cache does not change.
    fs.writeFileSync(path.join(cacache, CONTENT), "altered");
    assert.equal(fs.readFileSync(path.join(seed, "_cacache", CONTENT), "utf8"), "tarball bytes");
    assert.equal(await iso.seedHome("tenant-a"), null, "seeded once");
    const leftovers = fs.readdirSync(path.dirname(home)).filter((n) => n.startsWith(".npm-seed-"));
    assert.deepEqual(leftovers, [], "the staging directory is gone");
  });

  it("leaves a cache the workspace wrote first (or a link in its place) alone", async () => {
    const iso = isolation("/usr/bin/bwrap");
    const home = iso.workspace("tenant-a").home ?? "";
    const outside = path.join(temp.dir, `outside-${counter}`);
    fs.mkdirSync(outside);
    fs.symlinkSync(outside, path.join(home, ".npm"));
    assert.equal(await iso.seedHome("tenant-a"), null);
    assert.deepEqual(fs.readdirSync(outside), [], "nothing written through the link");
    assert.ok(fs.lstatSync(path.join(home, ".npm")).isSymbolicLink());
  });

  it("is not made without a sandbox, where the operator's own HOME is writable", async () => {
    const iso = isolation(null);
    assert.deepEqual(iso.workspace("tenant-a"), { identity: null, home: null });
    assert.deepEqual(iso.environment(iso.workspace("tenant-a")), {});
    assert.equal(await iso.seedHome("tenant-a"), null);
    assert.ok(!fs.existsSync(path.join(dataDir, "workspaces")));
  });
});
