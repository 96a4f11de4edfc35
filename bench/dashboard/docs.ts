// /docs in headless Chromium (issue 28): how long until the API reference is interactive, on a
// control plane's first visit (its document and compressed assets are made on first request) and
// on later first visits (fresh browser contexts, so an empty browser cache each time), and what
// the page transfers. Not a test: run `npm run bench:docs` and read the figures.
// BENCH_ROUNDS (5) changes the repetitions; BENCH_DOCS_HOST (127.0.0.1) the address visited (over
// plain http on another address Chromium asks for gzip, not brotli); BENCH_DOCS_WARMUP=0 turns the
// server's warm-up off (the first visit then waits for the document to be made). The first visit
// comes 5 s after start, as a person's would.
import { makeTempDir, spawnBerth } from "@berth-platform/testkit";
import { browserMissing, launchChromium } from "../../test/e2e/browser-helpers.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const HOST = process.env.BENCH_DOCS_HOST ?? "127.0.0.1";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const missing = browserMissing();
if (missing) {
  console.log(`docs bench skipped: ${missing}`);
  process.exit(0);
}

const temp = makeTempDir("berth-bench-docs-");
const server = await spawnBerth(
  ["up", "--port", "0", "--host", HOST === "127.0.0.1" ? "127.0.0.1" : "0.0.0.0", "--data-dir", temp.dir],
  {
    env: {
      BERTH_API_KEY: "bench-docs-key-0123456789abcdef",
      BERTH_CONFIG_DIR: temp.dir,
      BERTH_DOCS_WARMUP: process.env.BENCH_DOCS_WARMUP ?? "1",
    },
  },
);
await new Promise((resolve) => setTimeout(resolve, 5_000));
const browser = await launchChromium();
const base = `http://${HOST}:${new URL(server.url).port}`;
/** Each page: its path, what shows its operations, what opens one, what the opened one shows. */
const PAGES = [
  {
    name: "reference",
    path: "/docs",
    shown: "details.op",
    open: "details.op summary",
    opened: "details.op[open] .body",
  },
  {
    name: "swagger-ui",
    path: "/docs/swagger",
    shown: ".opblock",
    open: ".opblock-summary",
    opened: ".opblock.is-open .opblock-body",
  },
];
try {
  const results: Record<string, unknown> = {};
  for (const target of PAGES) {
    const rows: {
      operations_ms: number;
      interactive_ms: number;
      task_ms: number;
      bytes: number;
      requests: number;
    }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // A fresh context each round: an empty browser cache, as a first visit.
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send("Performance.enable");
      const loads: Array<Promise<number>> = [];
      page.on("requestfinished", (request) => {
        loads.push(request.sizes().then((s) => s.responseBodySize + s.responseHeadersSize));
      });
      const started = Date.now();
      await page.goto(`${base}${target.path}`);
      await page.locator(target.shown).first().waitFor({ timeout: 60_000 });
      const operations = Date.now() - started;
      // Interactive: the first operation opens on a click.
      await page.locator(target.open).first().click();
      await page.locator(target.opened).first().waitFor({ timeout: 60_000 });
      const interactive = Date.now() - started;
      // The page's main-thread CPU (script, style, layout): less noisy than wall time under load.
      const { metrics } = await cdp.send("Performance.getMetrics");
      const task = metrics.find((m) => m.name === "TaskDuration")?.value ?? Number.NaN;
      const sizes = await Promise.all(loads);
      rows.push({
        operations_ms: operations,
        interactive_ms: interactive,
        task_ms: Math.round(task * 1000),
        bytes: sizes.reduce((a, b) => a + b, 0),
        requests: sizes.length,
      });
      await context.close();
    }
    results[target.name] = {
      first_visit: rows[0],
      interactive_ms_median: median(rows.map((r) => r.interactive_ms)),
      interactive_ms_all: rows.map((r) => r.interactive_ms),
      main_thread_cpu_ms_median: median(rows.map((r) => r.task_ms)),
      transferred_bytes: rows[0]?.bytes,
      requests: rows[0]?.requests,
    };
  }
  console.log(JSON.stringify({ url: base, rounds: ROUNDS, ...results }, null, 2));
} finally {
  await browser.close();
  await server.stop();
  temp.cleanup();
}
