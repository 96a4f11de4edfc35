import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const VERSION = "v1";
const KEY_FILE = "secrets.key";

/** Seals and opens secret values with AES-256-GCM (a fresh 96-bit nonce per record, tag checked). */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error("The secrets key must be 32 bytes.");
    this.#key = Buffer.from(key);
  }

  /** Encrypts `plaintext`; the result is `v1:<base64 nonce|tag|ciphertext>`. */
  seal(plaintext: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#key, nonce);
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return `${VERSION}:${Buffer.concat([nonce, cipher.getAuthTag(), body]).toString("base64")}`;
  }

  /** A 32-byte key for another purpose (HKDF of the secrets key): the secrets key itself never leaves. */
  derive(purpose: string): Buffer {
    return Buffer.from(hkdfSync("sha256", this.#key, Buffer.alloc(0), `berth:${purpose}`, 32));
  }

  /** Decrypts a value made by `seal`; throws if it was altered or sealed with another key. */
  open(sealed: string): string {
    const [version, payload] = sealed.split(":", 2);
    if (version !== VERSION || payload === undefined) throw new Error("Unknown sealed secret format.");
    const raw = Buffer.from(payload, "base64");
    const decipher = createDecipheriv("aes-256-gcm", this.#key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
  }
}

/**
 * The key from config, or (embedded default) the one in `<dataDir>/secrets.key`, generated with
 * mode 0600 on first start. Losing that file makes stored secrets unreadable: back it up.
 */
export function loadSecretsKey(configured: Buffer | null, dataDir: string): Buffer {
  if (configured) return configured;
  const file = path.join(dataDir, KEY_FILE);
  try {
    const fd = fs.openSync(file, "wx", 0o600);
    fs.writeSync(fd, randomBytes(32).toString("base64"));
    fs.closeSync(fd);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const key = Buffer.from(fs.readFileSync(file, "utf8").trim(), "base64");
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key.`);
  return key;
}
