import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { create, Header, type HeaderData } from "tar";

/** One entry of a hand-made archive: any header (hostile ones included) and optional content. */
export interface RawEntry extends HeaderData {
  content?: string | Buffer;
}

/**
 * A `.tar.gz` made header by header, so tests can build archives no well-behaved packer would
 * (absolute paths, `..`, links out of the tree, devices).
 */
export function makeTarGz(entries: RawEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const { content, ...data } of entries) {
    const body = content === undefined ? Buffer.alloc(0) : Buffer.from(content);
    const header = Buffer.alloc(512);
    new Header({
      mode: data.type === "Directory" ? 0o755 : 0o644,
      mtime: new Date(0),
      uid: 0,
      gid: 0,
      ...data,
      size: data.type === undefined || data.type === "File" ? body.length : (data.size ?? 0),
    }).encode(header, 0);
    blocks.push(header);
    if (body.length > 0) {
      blocks.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
    }
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

/** A directory packed as a `.tar.gz` (as `langgraphjs deploy` or `berth deploy` would upload it). */
export function packDirectory(dir: string): Buffer {
  const out = path.join(
    os.tmpdir(),
    `berth-pack-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.tar.gz`,
  );
  try {
    create({ gzip: true, file: out, cwd: dir, sync: true, portable: true }, ["."]);
    return fs.readFileSync(out);
  } finally {
    fs.rmSync(out, { force: true });
  }
}
