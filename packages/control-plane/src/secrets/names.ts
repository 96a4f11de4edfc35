import type { Secret } from "../domain/types.js";

/**
 * A record read from storage may carry, under this non-enumerable key, a function giving its
 * secrets' names without opening (decrypting) their values: responses only show names with a mask.
 */
export const SECRET_NAMES: unique symbol = Symbol("berth.secretNames");

interface MaybeNamed {
  secrets: Secret[];
  [SECRET_NAMES]?: () => string[];
}

/** The names of a record's secrets, without decrypting them when the store can say so. */
export function secretNamesOf(record: { secrets: Secret[] }): string[] {
  const names = (record as MaybeNamed)[SECRET_NAMES];
  return names ? names() : record.secrets.map((s) => s.name);
}

/**
 * Sealed secrets text → the names in it. Only names are kept (never values); a sealed text is
 * immutable (fresh nonce per seal), so an entry never goes stale. Bounded: cleared when full.
 */
export class SecretNameCache {
  private readonly names = new Map<string, string[]>();

  constructor(private readonly max = 10_000) {}

  get(sealed: string, open: () => Secret[]): string[] {
    const hit = this.names.get(sealed);
    if (hit) return hit;
    const names = open().map((s) => s.name);
    if (this.names.size >= this.max) this.names.clear();
    this.names.set(sealed, names);
    return names;
  }
}
