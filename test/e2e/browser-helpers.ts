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

/**
 * Measured in the page: elements past the viewport's right edge (not held by a scroll container
 * that fits, directly or through clipping containers inside one: an SVG's text in a row of charts
 * that scrolls), and overlapping children of the containers that lay things out side by side.
 */
export const LAYOUT_PROBLEMS = `(() => {
  const vw = document.documentElement.clientWidth;
  const problems = [];
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + [...el.classList].map((c) => "." + c).join("");
  if (document.documentElement.scrollWidth > vw) problems.push("the page scrolls sideways: " + document.documentElement.scrollWidth + " > " + vw);
  const held = (el) => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      if (/(auto|scroll|hidden)/.test(getComputedStyle(p).overflowX)) return p.getBoundingClientRect().right <= vw + 1 || held(p);
    }
    return false;
  };
  for (const el of document.querySelectorAll("body *")) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0 && r.right > vw + 1 && !held(el)) problems.push("past the edge: " + name(el) + " right " + Math.round(r.right));
  }
  const containers = "header.top, header.top nav, .title-row, .timeline li, .trace-split, .split, .filters, .composer, .url-row";
  for (const box of document.querySelectorAll(containers)) {
    const kids = [...box.children].filter((k) => {
      const r = k.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(k).position !== "absolute";
    });
    for (let i = 0; i < kids.length; i++) for (let j = i + 1; j < kids.length; j++) {
      const a = kids[i].getBoundingClientRect(), b = kids[j].getBoundingClientRect();
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 1 && h > 1) problems.push("overlap in " + name(box) + ": " + name(kids[i]) + " and " + name(kids[j]));
    }
  }
  return problems.slice(0, 20);
})()`;
