import { webcrypto } from "node:crypto";

/** Bytes drawn from the system CSPRNG at once; requests up to MAX_POOLED_BYTES are served from them. */
const POOL_BYTES = 4096;
const MAX_POOLED_BYTES = 256;

/** Marks a pooled `getRandomValues`, so a second server in the same process does not wrap it again. */
const POOLED = Symbol.for("berth.pooledGetRandomValues");

/** The integer typed arrays Web Crypto fills; anything else goes to Node's own (which throws). */
function isIntegerArray(value: unknown): value is ArrayBufferView {
  return (
    value instanceof Uint8Array ||
    value instanceof Int8Array ||
    value instanceof Uint8ClampedArray ||
    value instanceof Uint16Array ||
    value instanceof Int16Array ||
    value instanceof Uint32Array ||
    value instanceof Int32Array ||
    value instanceof BigUint64Array ||
    value instanceof BigInt64Array
  );
}

/**
 * Serves small `crypto.getRandomValues` calls from a pool the system CSPRNG fills 4 KiB at a time,
 * for the process; returns what undoes it.
 *
 * Why: LangChain core and LangSmith (the project's own copies) draw a UUID for every runnable of
 * every step, traced or not, each through `crypto.getRandomValues(new Uint8Array(16))`. Node runs
 * each call as a native crypto job (an async resource, so the server's async hooks fire for it
 * too): 14 calls per echo run cost 6 µs each bare and about 0.4 ms of server CPU per run under load
 * (docs/decisions.md, issue 12 seventh pass). Node's own `randomUUID` and the `uuid` package buffer
 * their entropy the same way. Every byte still comes from the CSPRNG and is handed out once; served
 * bytes are zeroed in the pool. Larger requests, other array types and errors are Node's own.
 */
export function poolRandomValues(crypto: webcrypto.Crypto = webcrypto): () => void {
  const original = crypto.getRandomValues;
  if (Reflect.get(original, POOLED) === true) return () => {};
  // Node's own, for what the pool does not serve: it validates and throws as Web Crypto says.
  const fill = (array: unknown) => Reflect.apply(original, crypto, [array]) as unknown;
  const pool = new Uint8Array(POOL_BYTES);
  let offset = POOL_BYTES;
  const pooled = <T>(array: T): T => {
    if (!isIntegerArray(array) || array.byteLength > MAX_POOLED_BYTES) return fill(array) as T;
    const length = array.byteLength;
    if (offset + length > POOL_BYTES) {
      fill(pool);
      offset = 0;
    }
    new Uint8Array(array.buffer, array.byteOffset, length).set(pool.subarray(offset, offset + length));
    pool.fill(0, offset, offset + length);
    offset += length;
    return array;
  };
  Object.defineProperty(pooled, POOLED, { value: true });
  Object.defineProperty(pooled, "name", { value: "getRandomValues" });
  const own = Object.hasOwn(crypto, "getRandomValues");
  crypto.getRandomValues = pooled as typeof original;
  return () => {
    if (crypto.getRandomValues !== pooled) return;
    if (own) crypto.getRandomValues = original;
    else Reflect.deleteProperty(crypto, "getRandomValues");
  };
}
