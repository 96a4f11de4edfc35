// The web dashboard as the control plane serves it (in process): page paths answer the app,
// assets are precompressed and cached, the page is locked to its own origin. Its behaviour in a
// browser is test/e2e/dashboard.test.ts.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import zlib from "node:zlib";
import { dashboardDir } from "@berth-platform/dashboard";
import { usePlane } from "./helpers.js";

const plane = usePlane();
const inject = (url: string, headers: Record<string, string> = {}) =>
  plane().plane.app.inject({ url, headers });

describe("dashboard", () => {
  it("answers the app's page paths with index.html, without a key, locked by a CSP", async () => {
    for (const url of [
      "/",
      "/deployments",
      "/deployments/3f0c8c9e-0000-4000-8000-000000000000/logs",
      "/o/t/host/deployments/d",
    ]) {
      const res = await inject(url);
      assert.equal(res.statusCode, 200, url);
      assert.match(res.headers["content-type"] as string, /^text\/html/);
      assert.match(res.body, /<div id="app"><\/div>/);
      assert.match(res.headers["content-security-policy"] as string, /default-src 'self'/);
      assert.match(res.headers["content-security-policy"] as string, /frame-ancestors 'none'/);
      assert.equal(res.headers["cache-control"], "no-cache");
    }
  });

  it("serves the built assets precompressed (brotli, gzip) with year-long caching; no CDN", async () => {
    const html = (await inject("/")).body;
    assert.doesNotMatch(html, /src="https?:|href="https?:/);
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1] as string);
    assert.ok(assets.length >= 1, html);
    for (const asset of assets) {
      const br = await inject(asset, { "accept-encoding": "br, gzip" });
      assert.equal(br.statusCode, 200, asset);
      assert.equal(br.headers["content-encoding"], "br");
      assert.match(String(br.headers["cache-control"]), /immutable/);
      const plain = fs.readFileSync(path.join(dashboardDir, asset));
      assert.deepEqual(zlib.brotliDecompressSync(br.rawPayload), plain);
      const gz = await inject(asset, { "accept-encoding": "gzip" });
      assert.equal(gz.headers["content-encoding"], "gzip");
    }
  });

  it("leaves the API's own paths alone: unknown paths stay 404 JSON, /v2 still needs a key", async () => {
    const missing = await inject("/no-such-page");
    assert.equal(missing.statusCode, 404);
    assert.doesNotMatch(missing.body, /id="app"/);
    assert.match(missing.json<{ detail: string }>().detail, /Not found: GET \/no-such-page/);
    const api = await inject("/v3/nothing", { accept: "application/json" });
    assert.equal(api.statusCode, 404);
    assert.match(api.headers["content-type"] as string, /application\/json/);
    assert.equal((await inject("/v2/deployments")).statusCode, 401);
    assert.equal((await inject("/assets/nope.js")).statusCode, 404);
  });

  it("an unknown path a browser asks for gets the app (its not-found page) with status 404", async () => {
    const page = await inject("/no-such-page", {
      accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    });
    assert.equal(page.statusCode, 404);
    assert.match(page.headers["content-type"] as string, /^text\/html/);
    assert.match(page.body, /<div id="app"><\/div>/);
    assert.match(page.headers["content-security-policy"] as string, /default-src 'self'/);
  });
});
