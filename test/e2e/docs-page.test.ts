// The control plane's /docs in headless Chromium, reached as a person on another machine reaches
// it: plain http on a non-loopback address (issue 28). The page must show its operations without a
// console error; swagger-ui's package CSP asked for upgrade-insecure-requests, so the browser
// fetched the page's own assets over https and the reference never appeared. It lists the three
// APIs (the control plane's, the agent server's under /agents/{deployment_id}, tracing) and its
// 2 MB of swagger-ui arrives compressed.
import assert from "node:assert/strict";
import os from "node:os";
import { after, before, describe, it } from "node:test";
import { makeTempDir, type SpawnedServer, spawnBerth } from "@berth-platform/testkit";
import type { Browser } from "playwright-core";
import { browserMissing, launchChromium, watchErrors } from "./browser-helpers.js";

/** An IPv4 address of this machine other than loopback, or undefined. */
function externalAddress(): string | undefined {
  return Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a && a.family === "IPv4" && !a.internal)?.address;
}

const address = externalAddress();
const skip = browserMissing() ?? (address ? false : "no non-loopback IPv4 address here");

describe("/docs in Chromium over plain http on a non-loopback address", { skip, timeout: 300_000 }, () => {
  const temp = makeTempDir("berth-docs-");
  let server: SpawnedServer;
  let browser: Browser;

  before(async () => {
    server = await spawnBerth(
      [
        "up",
        "--port",
        "0",
        "--host",
        "0.0.0.0",
        "--data-dir",
        `${temp.dir}/data`,
        "--no-runtime",
        "--no-example",
      ],
      { env: { BERTH_API_KEY: "e2e-docs-key-0123456789abcdef" } },
    );
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    temp.cleanup();
  });

  it("/docs lists the operations of the three APIs, compressed, each opening on a click", async () => {
    const page = await browser.newPage();
    const errors = watchErrors(page);
    const encodings = new Map<string, string>();
    page.on("response", (r) =>
      encodings.set(new URL(r.url()).pathname, r.headers()["content-encoding"] ?? "identity"),
    );
    const port = new URL(server.url).port;
    const started = Date.now();
    await page.goto(`http://${address}:${port}/docs`);
    // The limit only catches a page that never loads; bench/dashboard/docs.ts measures the time.
    await page.locator("details.op").first().waitFor({ timeout: 30_000 });
    console.log(`/docs operations shown after ${Date.now() - started} ms`);
    const paths = await page
      .locator("details.op")
      .evaluateAll((ops) => ops.map((o) => o.getAttribute("data-path")));
    for (const expected of [
      "/v2/deployments",
      "/agents/{deployment_id}/threads/{thread_id}/state",
      "/agents/{deployment_id}/runs/stream",
      "/langsmith-api/runs/multipart",
      "/langsmith-api/runs/query",
    ]) {
      assert.ok(paths.includes(expected), `${expected} is listed (${paths.length} operations)`);
    }
    assert.ok(paths.length > 80, `${paths.length} operations`);
    for (const tag of ["deployments", "Agent: threads", "Agent: runs", "Tracing: runs"]) {
      assert.equal(await page.locator(`section.tag[data-tag="${tag}"]`).count(), 1, tag);
    }
    // Interactive: an operation opens on a click and shows its parameters.
    const state = page.locator(
      'details.op[data-method=post][data-path="/agents/{deployment_id}/threads/{thread_id}/state"]',
    );
    await state.locator("summary").click();
    await state.locator(".body", { hasText: "deployment_id" }).waitFor();
    // Over plain http on another address Chromium asks for gzip (brotli only on https/localhost).
    assert.equal(encodings.get("/docs"), "gzip");
    assert.deepEqual(errors, []);
  });

  it("/docs/swagger shows the same document in Swagger UI, its 1.7 MB bundle compressed", async () => {
    const page = await browser.newPage();
    const errors = watchErrors(page);
    const encodings = new Map<string, string>();
    page.on("response", (r) =>
      encodings.set(new URL(r.url()).pathname, r.headers()["content-encoding"] ?? "identity"),
    );
    const port = new URL(server.url).port;
    const apiDocument = (await (await fetch(`${server.url}/docs/json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const expected = Object.entries(apiDocument.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method} ${path}`),
    );
    assert.ok(expected.length > 80, `${expected.length} operations in /docs/json`);
    await page.goto(`http://${address}:${port}/docs/swagger`);
    await page.locator(".opblock").first().waitFor({ timeout: 60_000 });
    // Swagger UI (5.31+) virtualizes a list of 150 tags and operations or more: only those near
    // the viewport are in the DOM. A reader scrolls; so does the test, gathering what appears.
    const shown = new Set<string>();
    const tags = new Set<string>();
    let bottom = false;
    for (let step = 0; step < 1_000 && !bottom; step++) {
      // Page code as a string: the tests are type-checked without the DOM library.
      const seen = (await page.evaluate(`(async () => {
        await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
        const ops = [...document.querySelectorAll(".opblock")].map((op) => {
          const method = op.querySelector(".opblock-summary-method")?.textContent?.toLowerCase();
          const path = op.querySelector(".opblock-summary-path")?.getAttribute("data-path");
          return method + " " + path;
        });
        const tags = [...document.querySelectorAll(".opblock-tag")].map((t) => t.getAttribute("data-tag") ?? "");
        const atBottom = window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2;
        window.scrollBy(0, window.innerHeight / 2);
        return { ops, tags, atBottom };
      })()`)) as { ops: string[]; tags: string[]; atBottom: boolean };
      for (const op of seen.ops) shown.add(op);
      for (const tag of seen.tags) tags.add(tag);
      bottom = seen.atBottom;
    }
    assert.ok(bottom, "the page scrolls to its end");
    assert.ok(tags.has("Tracing: runs"), [...tags].join(", "));
    assert.deepEqual([...shown].sort(), [...expected].sort());
    assert.equal(encodings.get("/docs/static/swagger-ui-bundle.js"), "gzip");
    assert.equal(encodings.get("/docs/json"), "gzip");
    assert.deepEqual(errors, []);
  });
});
