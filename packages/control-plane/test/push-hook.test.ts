// build_on_push: the keyless push webhook (a doorbell for the periodic check) and hostile bodies.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { usePlane } from "./helpers.js";
import {
  buildLog,
  built,
  checksOf,
  createDeployment,
  GIT_HOSTS,
  head,
  makeRepo,
  pushPayload,
  revisions,
} from "./push-fixtures.js";

describe("build_on_push: the push webhook", () => {
  const plane = usePlane({ BERTH_GIT_HOSTS: GIT_HOSTS, BERTH_PUSH_POLL_SECS: "0" });
  const watcher = () => plane().plane.pushWatcher;

  it("answers 202 without an API key and triggers a check of the matching deployments", async () => {
    const repo = makeRepo("hooked");
    const d = await createDeployment(plane, "hook-one", repo.url);
    const [first] = await revisions(plane, d.id);
    assert.ok(first);
    await built(plane, first, head(repo.dir));
    const sha = repo.push();

    for (const [ref, url] of [
      ["refs/heads/dev", repo.url],
      ["refs/tags/v1", repo.url],
      ["refs/heads/main", `${repo.url}-other`],
    ] as const) {
      const miss = await plane().raw({
        method: "POST",
        url: "/v1/integrations/repo_host/push",
        payload: pushPayload(url, ref),
      });
      assert.equal(miss.statusCode, 202, miss.body);
      assert.deepEqual(miss.json(), { checked: 0 });
    }

    const res = await plane().raw({
      method: "POST",
      url: "/v1/integrations/repo_host/push",
      headers: { "x-github-event": "push" },
      payload: pushPayload(repo.url, "refs/heads/main", sha),
    });
    assert.equal(res.statusCode, 202, res.body);
    assert.deepEqual(res.json(), { checked: 1 });
    await watcher().idle();
    const all = await revisions(plane, d.id);
    assert.equal(all.length, 2);
    assert.ok(
      (await buildLog(plane, d.id, all[0]?.id ?? "")).includes(
        `Triggered by a push to main (${sha.slice(0, 7)})`,
      ),
    );
  });

  it("github path with GitHub's form encoding; a ping is acknowledged", async () => {
    const repo = makeRepo("form");
    const d = await createDeployment(plane, "hook-form", repo.url);
    const [first] = await revisions(plane, d.id);
    assert.ok(first);
    await built(plane, first, head(repo.dir));
    const sha = repo.push();
    const ping = await plane().raw({
      method: "POST",
      url: "/v1/integrations/github/push",
      headers: { "x-github-event": "ping" },
      payload: { zen: "Keep it logically awesome.", hook_id: 1 },
    });
    assert.equal(ping.statusCode, 202, ping.body);
    const res = await plane().raw({
      method: "POST",
      url: "/v1/integrations/github/push",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-github-event": "push" },
      payload: new URLSearchParams({
        payload: JSON.stringify(pushPayload(repo.url, "refs/heads/main", sha)),
      }).toString(),
    });
    assert.equal(res.statusCode, 202, res.body);
    assert.deepEqual(res.json(), { checked: 1 });
    await watcher().idle();
    assert.equal((await revisions(plane, d.id)).length, 2);
  });

  it("concurrent notifications of one push coalesce into few checks and one revision", async () => {
    const repo = makeRepo("burst");
    const d = await createDeployment(plane, "hook-burst", repo.url);
    const [first] = await revisions(plane, d.id);
    assert.ok(first);
    await built(plane, first, head(repo.dir));
    const sha = repo.push();
    const before = checksOf(plane, d.id);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        plane().raw({
          method: "POST",
          url: "/v1/integrations/repo_host/push",
          payload: pushPayload(repo.url, "refs/heads/main", sha),
        }),
      ),
    );
    assert.deepEqual(new Set(answers.map((a) => a.statusCode)), new Set([202]));
    await watcher().idle();
    const checks = checksOf(plane, d.id) - before;
    assert.ok(checks >= 1 && checks <= 3, `${checks} checks`);
    assert.equal((await revisions(plane, d.id)).length, 2);
  });
});

describe("build_on_push: hostile webhook bodies", () => {
  const plane = usePlane({ BERTH_GIT_HOSTS: GIT_HOSTS, BERTH_PUSH_POLL_SECS: "0" });
  const url = "/v1/integrations/repo_host/push";

  it("malformed bodies are 4xx, never 5xx, and never ask for an API key", async () => {
    const json = { "content-type": "application/json" };
    const cases: Array<{ name: string; headers?: Record<string, string>; payload?: string }> = [
      { name: "no body" },
      { name: "text", headers: { "content-type": "text/plain" }, payload: "ref=main" },
      { name: "bad json", headers: json, payload: "{" },
      { name: "binary", headers: json, payload: "\u0000\u00ff\u00fe" },
      { name: "array", headers: json, payload: "[]" },
      { name: "string", headers: json, payload: '"push"' },
      { name: "null", headers: json, payload: "null" },
      { name: "no ref", headers: json, payload: JSON.stringify({ repository: { url: "https://x/y" } }) },
      {
        name: "ref not a string",
        headers: json,
        payload: JSON.stringify({ ref: 1, repository: { url: "u" } }),
      },
      { name: "empty ref", headers: json, payload: JSON.stringify({ ref: "", repository: { url: "u" } }) },
      {
        name: "huge ref",
        headers: json,
        payload: JSON.stringify({ ref: "r".repeat(5000), repository: { url: "u" } }),
      },
      { name: "no repository", headers: json, payload: JSON.stringify({ ref: "refs/heads/main" }) },
      {
        name: "repository without urls",
        headers: json,
        payload: JSON.stringify({ ref: "refs/heads/main", repository: { name: "x" } }),
      },
      {
        name: "repository not an object",
        headers: json,
        payload: JSON.stringify({ ref: "refs/heads/main", repository: "x" }),
      },
      {
        name: "prototype pollution",
        headers: json,
        payload: '{"ref":"refs/heads/main","repository":{"url":"u"},"__proto__":{"polluted":true}}',
      },
      { name: "deep nesting", headers: json, payload: `${"[".repeat(100_000)}${"]".repeat(100_000)}` },
      {
        name: "over the size limit",
        headers: json,
        payload: JSON.stringify({
          ref: "refs/heads/main",
          repository: { url: "u" },
          pad: "x".repeat(1_100_000),
        }),
      },
      {
        name: "form without payload",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: "a=b",
      },
      {
        name: "form with bad json",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: "payload=%7B",
      },
    ];
    for (const c of cases) {
      const res = await plane().raw({ method: "POST", url, headers: c.headers ?? {}, payload: c.payload });
      assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${c.name}: ${res.statusCode} ${res.body}`);
      assert.notEqual(res.statusCode, 401, c.name);
      assert.ok(typeof res.json<{ detail: unknown }>().detail !== "undefined", c.name);
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    // Hostile but well formed: nothing matches, nothing is trusted.
    const odd = await plane().raw({
      method: "POST",
      url,
      payload: {
        ref: "refs/heads/../../etc",
        repository: { url: "--upload-pack=touch /tmp/pwned", clone_url: "file:///etc" },
        extra: { deep: [[[[{}]]]] },
      },
    });
    assert.equal(odd.statusCode, 202, odd.body);
    assert.deepEqual(odd.json(), { checked: 0 });
  });

  it("a flood is rate-limited (429) before bodies are read", async () => {
    const answers = await Promise.all(
      Array.from({ length: 150 }, () =>
        plane().raw({
          method: "POST",
          url,
          payload: pushPayload("https://git.example/o/r", "refs/heads/main"),
        }),
      ),
    );
    const codes = answers.map((a) => a.statusCode);
    assert.ok(codes.includes(202));
    assert.ok(codes.includes(429));
    assert.ok(
      codes.every((c) => c === 202 || c === 429),
      codes.join(","),
    );
  });
});
