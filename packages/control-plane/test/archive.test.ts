// Safe extraction of uploaded source archives: hostile archives are refused before anything is
// written, and nothing ever lands outside the destination.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { makeTarGz, makeTempDir, type RawEntry } from "@berth-platform/testkit";
import { ArchiveRejectedError, extractSourceArchive } from "../src/runtime/local/archive.js";

const LIMITS = { maxBytes: 1024 * 1024, maxEntries: 100, maxDepth: 8 };

let temp: { dir: string; cleanup(): void };
let dest: string;

beforeEach(() => {
  temp = makeTempDir("berth-archive-");
  dest = path.join(temp.dir, "out", "src");
  fs.mkdirSync(dest, { recursive: true });
});
afterEach(() => temp.cleanup());

async function extract(entries: RawEntry[], limits = LIMITS) {
  const file = path.join(temp.dir, "upload.tar.gz");
  fs.writeFileSync(file, makeTarGz(entries));
  return extractSourceArchive(file, dest, limits);
}

/** Every path under the temp dir that is not the archive or inside the destination. */
function strayFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (full === dest || full === path.join(temp.dir, "upload.tar.gz")) continue;
      if (entry.isDirectory() && !entry.isSymbolicLink()) walk(full);
      else found.push(path.relative(temp.dir, full));
    }
  };
  walk(temp.dir);
  return found;
}

async function rejects(entries: RawEntry[], pattern: RegExp, limits = LIMITS) {
  await assert.rejects(extract(entries, limits), (error: unknown) => {
    assert.ok(error instanceof ArchiveRejectedError, String(error));
    assert.match(error.message, pattern);
    return true;
  });
  assert.deepEqual(strayFiles(), []);
  assert.deepEqual(fs.readdirSync(dest), [], "nothing is extracted from a rejected archive");
}

describe("extractSourceArchive", () => {
  it("extracts files, directories and links that stay inside", async () => {
    const totals = await extract([
      { path: "package/", type: "Directory" },
      { path: "package/graph.json", content: '{"graphs":{}}' },
      { path: "package/src/agent.ts", content: "export const graph = 1;\n" },
      { path: "package/current", type: "SymbolicLink", linkpath: "src" },
      { path: "package/copy.ts", type: "Link", linkpath: "package/src/agent.ts" },
    ]);
    assert.equal(totals.entries, 5);
    assert.equal(
      fs.readFileSync(path.join(dest, "package/src/agent.ts"), "utf8"),
      "export const graph = 1;\n",
    );
    assert.equal(fs.readlinkSync(path.join(dest, "package/current")), "src");
    assert.equal(fs.readFileSync(path.join(dest, "package/copy.ts"), "utf8"), "export const graph = 1;\n");
  });

  it("refuses `..` in a path (zip slip)", async () => {
    await rejects(
      [
        { path: "ok.txt", content: "x" },
        { path: "../../evil.txt", content: "pwned" },
      ],
      /contains "\.\."/,
    );
    await rejects([{ path: "a/../../evil.txt", content: "pwned" }], /contains "\.\."/);
  });

  it("refuses absolute paths", async () => {
    await rejects([{ path: `${temp.dir}/evil.txt`, content: "pwned" }], /absolute path/);
  });

  it("refuses symbolic links that point outside, absolutely or through ..", async () => {
    await rejects([{ path: "etc", type: "SymbolicLink", linkpath: "/etc" }], /outside the source/);
    await rejects([{ path: "a/up", type: "SymbolicLink", linkpath: "../../.." }], /outside the source/);
  });

  it("refuses writing through a symbolic link the archive made", async () => {
    await rejects(
      [
        { path: "here", type: "SymbolicLink", linkpath: "." },
        { path: "here/c", type: "SymbolicLink", linkpath: "../escape" },
      ],
      /through the symbolic link here/,
    );
    await rejects(
      [
        { path: "sub/", type: "Directory" },
        { path: "link", type: "SymbolicLink", linkpath: "sub" },
        { path: "link/file.txt", content: "x" },
      ],
      /through the symbolic link link/,
    );
  });

  it("resolves symbolic link chains through the archive's own links (issue 11 item 8)", async () => {
    // Lexically `d1/up/..` is `d1`, but `d1/up` is a link to `..`: on disk it leads outside.
    const chain = [
      { path: "d1/", type: "Directory" as const },
      { path: "d1/up", type: "SymbolicLink" as const, linkpath: ".." },
      { path: "esc", type: "SymbolicLink" as const, linkpath: "d1/up/.." },
    ];
    await rejects(chain, /through other links/);
    // The same chain with the escaping link first (it only escapes once the later one exists).
    await rejects([chain[2], chain[0], chain[1]] as RawEntry[], /through other links/);
    await rejects(
      [
        { path: "a", type: "SymbolicLink", linkpath: "b" },
        { path: "b", type: "SymbolicLink", linkpath: "a/x" },
      ],
      /loops/,
    );
    await rejects(
      [
        { path: "d/", type: "Directory" },
        { path: "d/f.txt", content: "x" },
        { path: "s", type: "SymbolicLink", linkpath: "d" },
        { path: "h", type: "Link", linkpath: "s/f.txt" },
      ],
      /through the symbolic link s/,
    );
    // Links that stay inside are fine.
    await extract([
      { path: "d/", type: "Directory" },
      { path: "d/f.txt", content: "x" },
      { path: "d/up", type: "SymbolicLink", linkpath: ".." },
      { path: "l", type: "SymbolicLink", linkpath: "d/f.txt" },
    ]);
    assert.equal(fs.readFileSync(path.join(dest, "l"), "utf8"), "x");
  });

  it("refuses hard links out of the tree", async () => {
    await rejects([{ path: "passwd", type: "Link", linkpath: "../../../etc/passwd" }], /outside the source/);
  });

  it("refuses device files and FIFOs", async () => {
    await rejects([{ path: "null", type: "CharacterDevice", devmaj: 1, devmin: 3 }], /CharacterDevice/);
    await rejects([{ path: "disk", type: "BlockDevice", devmaj: 8, devmin: 0 }], /BlockDevice/);
    await rejects([{ path: "pipe", type: "FIFO" }], /FIFO/);
  });

  it("enforces the entry, size and depth limits", async () => {
    const many = Array.from({ length: 6 }, (_, i) => ({ path: `f${i}.txt`, content: "x" }));
    await rejects(many, /more than 5 entries/, { ...LIMITS, maxEntries: 5 });
    await rejects([{ path: "big.bin", content: Buffer.alloc(4096) }], /more than 1000 bytes/, {
      ...LIMITS,
      maxBytes: 1000,
    });
    await rejects([{ path: "a/b/c/d/e.txt", content: "x" }], /deeper than 3/, { ...LIMITS, maxDepth: 3 });
  });

  it("refuses what is not a gzipped tar, and an empty archive", async () => {
    const file = path.join(temp.dir, "upload.tar.gz");
    fs.writeFileSync(file, "this is not an archive");
    await assert.rejects(extractSourceArchive(file, dest, LIMITS), ArchiveRejectedError);
    await rejects([], /empty|not a readable/);
  });
});
