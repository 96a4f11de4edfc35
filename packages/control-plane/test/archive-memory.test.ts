// The archive check and extraction are streamed (issue 11 item 7): memory stays under 256 MiB
// whatever the archive — a gzip bomb refused at its first oversized header, a huge accepted entry
// written to disk with backpressure. Each extraction runs in a child process that reports its
// peak resident memory.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { createGzip } from "node:zlib";
import { makeTempDir } from "@berth-platform/testkit";
import { Header } from "tar";

const MiB = 1024 * 1024;
const LIMIT_RSS = 256 * MiB;
const PROBE = path.join(path.dirname(fileURLToPath(import.meta.url)), "archive-memory-probe.ts");
const temp = makeTempDir("berth-archive-memory-");
after(() => temp.cleanup());

/** Writes a .tar.gz of zero-filled files (`sizes` in bytes), streamed: a few hundred KiB per GiB. */
async function zeroArchive(file: string, sizes: number[]): Promise<void> {
  async function* blocks() {
    const zeros = Buffer.alloc(MiB);
    for (const [i, size] of sizes.entries()) {
      const header = Buffer.alloc(512);
      new Header({ path: `big-${i}.bin`, mode: 0o644, size, type: "File", mtime: new Date(0) }).encode(
        header,
        0,
      );
      yield header;
      for (let left = size; left > 0; left -= MiB) yield left >= MiB ? zeros : zeros.subarray(0, left);
      if (size % 512) yield Buffer.alloc(512 - (size % 512));
    }
    yield Buffer.alloc(1024);
  }
  await pipeline(blocks, createGzip({ level: 1 }), fs.createWriteStream(file));
}

function probe(archive: string, limits: object): { outcome: string; maxRssBytes: number } {
  const dest = fs.mkdtempSync(path.join(temp.dir, "dest-"));
  try {
    const out = execFileSync(
      process.execPath,
      ["--import", "tsx", PROBE, archive, dest, JSON.stringify(limits)],
      {
        encoding: "utf8",
        timeout: 120_000,
      },
    );
    const result = JSON.parse(out.trim().split("\n").pop() ?? "{}");
    if (process.env.BERTH_PRINT_RSS) console.log(path.basename(archive), result);
    return result;
  } finally {
    fs.rmSync(dest, { recursive: true, force: true });
  }
}

describe("archive memory bound (issue 11 item 7)", () => {
  it("a gzip bomb is refused at its first oversized header without inflating it into memory", async () => {
    const bomb = path.join(temp.dir, "bomb.tar.gz");
    await zeroArchive(bomb, [300 * MiB, 300 * MiB]);
    assert.ok(fs.statSync(bomb).size < 4 * MiB, "a small upload");
    const result = probe(bomb, { maxBytes: 512 * MiB, maxEntries: 100, maxDepth: 8 });
    assert.match(result.outcome, /refused: the archive expands to more than/);
    assert.ok(result.maxRssBytes < LIMIT_RSS, `peak RSS ${Math.round(result.maxRssBytes / MiB)} MiB`);
  });

  it("an accepted 600 MB entry is extracted with memory under 256 MiB", async () => {
    const big = path.join(temp.dir, "big.tar.gz");
    await zeroArchive(big, [600 * MiB]);
    const result = probe(big, { maxBytes: 1024 * MiB, maxEntries: 100, maxDepth: 8 });
    assert.match(result.outcome, /extracted 1 entries/);
    assert.ok(result.maxRssBytes < LIMIT_RSS, `peak RSS ${Math.round(result.maxRssBytes / MiB)} MiB`);
  });
});
