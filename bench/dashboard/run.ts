// Dashboard weight and speed in headless Chromium (issue 16): the bytes the first load transfers
// (compressed, as the browser received them) and the time from "Sign in" to a rendered list of 500
// deployments. Not a test: run `npm run bench:dashboard` and read the figures.
// BENCH_DEPLOYMENTS (500) and BENCH_ROUNDS (3) change the size and the repetitions.
import { makeTempDir, spawnBerth } from "@berth-platform/testkit";
import { browserMissing, launchChromium } from "../../test/e2e/browser-helpers.js";

const KEY = "bench-dashboard-key-0123456789abcdef";
const COUNT = Number(process.env.BENCH_DEPLOYMENTS ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function createDeployments(url: string): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < COUNT) {
      const i = next++;
      const res = await fetch(`${url}/v2/deployments`, {
        method: "POST",
        headers: { "X-Api-Key": KEY, "Content-Type": "application/json" },
        body: JSON.stringify({
          name: `bench-${String(i).padStart(4, "0")}`,
          source: "internal_template",
          source_config: { template_id: "react-agent" },
          source_revision_config: {},
          secrets: [],
        }),
      });
      if (res.status !== 201) throw new Error(`create ${i}: ${res.status} ${await res.text()}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

const missing = browserMissing();
if (missing) {
  console.log(`dashboard bench skipped: ${missing}`);
  process.exit(0);
}

const temp = makeTempDir("berth-bench-dashboard-");
// No runtime: revisions stop at AWAITING_BUILD, so the machine's work is the control plane's API.
const server = await spawnBerth([
  "up",
  "--port",
  "0",
  "--data-dir",
  temp.dir,
  "--api-key",
  KEY,
  "--no-example",
  "--no-runtime",
]);
const browser = await launchChromium();
try {
  const created = Date.now();
  await createDeployments(server.url);
  console.log(`created ${COUNT} deployments in ${Date.now() - created} ms`);
  const transferred: number[] = [];
  const requests: number[] = [];
  const listMs: number[] = [];
  const statusesMs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // A fresh context each round: empty cache, no session, as a first visit.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const loads: Array<Promise<number>> = [];
    page.on("requestfinished", (request) => {
      loads.push(request.sizes().then((s) => s.responseBodySize + s.responseHeadersSize));
    });
    await page.goto(`${server.url}/`, { waitUntil: "load" });
    await page.locator("input[name=api-key]").waitFor();
    const sizes = await Promise.all(loads);
    transferred.push(sizes.reduce((a, b) => a + b, 0));
    requests.push(sizes.length);

    await page.fill("input[name=api-key]", KEY);
    const started = Date.now();
    await page.click("button[type=submit]");
    // Locators, not waitForFunction: the page's CSP forbids evaluating strings.
    const rows = page.locator("#deployments tbody tr");
    await rows.nth(COUNT - 1).waitFor({ state: "attached", timeout: 60_000 });
    listMs.push(Date.now() - started);
    // Every row's latest revision status has arrived (an unknown one renders data-status="").
    await page
      .locator("#deployments .badge[data-status='']")
      .first()
      .waitFor({ state: "detached", timeout: 120_000 });
    if ((await rows.count()) !== COUNT) throw new Error(`expected ${COUNT} rows, got ${await rows.count()}`);
    statusesMs.push(Date.now() - started);
    await context.close();
  }
  console.log(
    JSON.stringify(
      {
        deployments: COUNT,
        rounds: ROUNDS,
        first_load_requests: requests[0],
        first_load_transferred_bytes_median: median(transferred),
        sign_in_to_list_rendered_ms: { median: median(listMs), all: listMs },
        sign_in_to_every_status_shown_ms: { median: median(statusesMs), all: statusesMs },
      },
      null,
      2,
    ),
  );
} finally {
  await browser.close();
  await server.stop();
  temp.cleanup();
}
