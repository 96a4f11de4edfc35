import fs from "node:fs";

/** Longest line kept; longer ones are cut (a runaway line must not fill the log store). */
const MAX_LINE = 8_192;

/**
 * Follows a growing file and hands each complete line to `onLine` (the deploy log of a revision
 * is what its agent server prints). Polls, because fs.watch is unreliable across filesystems.
 */
export class FileTail {
  #offset: number;
  #partial = "";
  #timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly file: string,
    private readonly onLine: (line: string) => void,
    options: { fromEnd?: boolean } = {},
  ) {
    this.#offset = options.fromEnd ? sizeOf(file) : 0;
  }

  /** Starts polling every `intervalMs`. */
  start(intervalMs = 250): this {
    this.#timer = setInterval(() => this.poll(), intervalMs);
    this.#timer.unref();
    return this;
  }

  /** Reads what was appended since the last poll. */
  poll(): void {
    const size = sizeOf(this.file);
    if (size < this.#offset) this.#offset = 0; // truncated: start over
    if (size === this.#offset) return;
    const fd = fs.openSync(this.file, "r");
    try {
      const buffer = Buffer.alloc(Math.min(size - this.#offset, 1024 * 1024));
      const read = fs.readSync(fd, buffer, 0, buffer.length, this.#offset);
      this.#offset += read;
      const lines = (this.#partial + buffer.subarray(0, read).toString("utf8")).split("\n");
      this.#partial = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) this.onLine(line.slice(0, MAX_LINE));
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Reads the rest, flushes a last partial line and stops. */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.poll();
    if (this.#partial.trim()) this.onLine(this.#partial.slice(0, MAX_LINE));
    this.#partial = "";
  }
}

function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}
