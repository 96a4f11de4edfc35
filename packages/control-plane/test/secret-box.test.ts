// Secrets at rest: AES-256-GCM with a per-record nonce; a generated key file for the embedded default.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { makeTempDir } from "@berth-platform/testkit";
import { loadSecretsKey, SecretBox } from "../src/secrets/box.js";

describe("SecretBox", () => {
  const temp = makeTempDir();
  after(() => temp.cleanup());

  it("round-trips, never contains the plaintext and differs each time", () => {
    const box = new SecretBox(randomBytes(32));
    const a = box.seal("sk-live-MARKER");
    const b = box.seal("sk-live-MARKER");
    assert.notEqual(a, b);
    assert.ok(!a.includes("MARKER"));
    assert.equal(box.open(a), "sk-live-MARKER");
  });

  it("detects tampering and a wrong key", () => {
    const box = new SecretBox(randomBytes(32));
    const sealed = box.seal("value");
    const raw = Buffer.from(sealed.slice(3), "base64");
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    assert.throws(() => box.open(`v1:${raw.toString("base64")}`));
    assert.throws(() => new SecretBox(randomBytes(32)).open(sealed));
    assert.throws(() => new SecretBox(randomBytes(16)));
  });

  it("generates a 0600 key file once and reuses it; a configured key wins", () => {
    const first = loadSecretsKey(null, temp.dir);
    const second = loadSecretsKey(null, temp.dir);
    assert.deepEqual(first, second);
    assert.equal(fs.statSync(path.join(temp.dir, "secrets.key")).mode & 0o777, 0o600);
    const configured = randomBytes(32);
    assert.deepEqual(loadSecretsKey(configured, temp.dir), configured);
  });
});
