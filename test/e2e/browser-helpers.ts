// Headless Chromium for the dashboard's tests and bench: Debian's `chromium` driven by
// playwright-core (no browser download; .ci/run installs the package).
import fs from "node:fs";
import path from "node:path";
import { repoRoot } from "@berth-platform/testkit";
import { type Browser, chromium, type Page } from "playwright-core";

/** Where Debian installs Chromium (BERTH_CHROMIUM overrides it). */
export const CHROMIUM = process.env.BERTH_CHROMIUM ?? "/usr/bin/chromium";

/**
 * Where screenshots go: `BERTH_SCREENS_DIR` when set (`npm run screenshots` points it at
 * docs/screens, the README's pictures), else the test's own temporary directory, so `npm test`
 * never rewrites a tracked file.
 */
export function screensDir(testTempDir: string): string {
  const chosen = process.env.BERTH_SCREENS_DIR;
  return chosen ? path.resolve(repoRoot, chosen) : path.join(testTempDir, "screens");
}

/** Why browser tests cannot run here (printed as the skip reason), or null. */
export function browserMissing(): string | null {
  return fs.existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM} (apt-get install chromium)`;
}

/** Starts headless Chromium with the flags this machine needs. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: 60_000,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
}

/** Collects the page's uncaught errors and console errors (a test asserts there are none). */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    // A failed request logs a console error too; the tests that expect one (401) filter it.
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource"))
      errors.push(`console: ${m.text()}`);
  });
  page.on("response", (r) => {
    if (r.status() >= 400) errors.push(`${r.status()} ${r.request().method()} ${r.url()}`);
  });
  return errors;
}

/** Saves a screenshot of the page as <dir>/<name>.png (dir from `screensDir`). */
export async function screenshot(page: Page, dir: string, name: string): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`) });
}
