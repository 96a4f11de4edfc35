import assert from "node:assert/strict";
import { webcrypto } from "node:crypto";
import { describe, it } from "node:test";
import { poolRandomValues } from "../src/execution/random-pool.js";

/** A Crypto whose source writes 0, 1, 2, … (mod 256) and counts its calls. */
function countingCrypto() {
  let next = 0;
  const source = {
    calls: 0,
    getRandomValues<T>(array: T): T {
      source.calls += 1;
      const view = array as unknown as Uint8Array;
      const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
      for (let i = 0; i < bytes.length; i += 1) bytes[i] = next++ % 256;
      return array;
    },
  };
  return source as typeof source & webcrypto.Crypto;
}

describe("poolRandomValues", () => {
  it("hands out the source's bytes in order, each once, refilling 4 KiB at a time", () => {
    const crypto = countingCrypto();
    poolRandomValues(crypto);
    const drawn: number[] = [];
    for (let i = 0; i < 1000; i += 1) {
      const array = new Uint8Array(16);
      assert.equal(crypto.getRandomValues(array), array, "fills in place and returns the array");
      drawn.push(...array);
    }
    assert.equal(crypto.calls, 4, "16,000 bytes from four 4,096-byte fills");
    assert.deepEqual(
      drawn,
      drawn.map((_, i) => i % 256),
    );
  });

  it("writes only the view's bytes of a larger buffer", () => {
    const crypto = countingCrypto();
    poolRandomValues(crypto);
    const buffer = new Uint8Array(16);
    crypto.getRandomValues(new Uint32Array(buffer.buffer, 4, 2));
    assert.deepEqual([...buffer], [0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0]);
  });

  it("leaves large requests to the source", () => {
    const crypto = countingCrypto();
    poolRandomValues(crypto);
    crypto.getRandomValues(new Uint8Array(1024));
    crypto.getRandomValues(new Uint8Array(1024));
    assert.equal(crypto.calls, 2);
  });

  it("keeps Node's errors for what Web Crypto refuses", () => {
    const restore = poolRandomValues();
    try {
      assert.throws(() => webcrypto.getRandomValues(new Float32Array(4) as never), {
        name: "TypeMismatchError",
      });
      assert.throws(() => webcrypto.getRandomValues(new Uint8Array(65_537)), { name: "QuotaExceededError" });
    } finally {
      restore();
    }
  });

  it("gives distinct values on the real CSPRNG and restores Node's function", () => {
    const original = webcrypto.getRandomValues;
    const restore = poolRandomValues();
    const again = poolRandomValues();
    try {
      assert.notEqual(webcrypto.getRandomValues, original);
      const seen = new Set<string>();
      const values = new Set<number>();
      for (let i = 0; i < 5000; i += 1) {
        const id = globalThis.crypto.getRandomValues(new Uint8Array(16));
        seen.add(Buffer.from(id).toString("hex"));
        for (const byte of id) values.add(byte);
      }
      assert.equal(seen.size, 5000, "no 16-byte draw repeats");
      assert.equal(values.size, 256, "every byte value occurs");
    } finally {
      again();
      assert.notEqual(webcrypto.getRandomValues, original, "a second install does not undo the first");
      restore();
    }
    assert.equal(webcrypto.getRandomValues, original);
  });
});
