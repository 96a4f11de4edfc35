// Every dashboard page at 1280 px and at 390 px (a phone), measured in headless Chromium (issue 28):
// nothing sticks out of the viewport unless a scroll container inside it holds it (a wide table
// scrolls in its card, the page never scrolls sideways), and the parts of the layouts that sit
// side by side (header, title rows, revision rows, the trace page's run tree and detail pane) do
// not overlap. The trace page is measured with its conversation, feedback, charts and search. Each page is captured at both widths (into the test's temporary directory).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client } from "@langchain/langgraph-sdk";
import type { Browser, Page } from "playwright-core";
import {
  browserMissing,
  LAYOUT_PROBLEMS,
  launchChromium,
  screensDir,
  screenshot,
} from "./browser-helpers.js";
import { ControlPlaneUnderTest, eventually } from "./control-plane-helpers.js";

const KEY = "e2e-dashboard-layout-key-0123456789abcdef";
const missing = browserMissing();

describe("dashboard layout at 1280 px and 390 px", { skip: missing ?? false, timeout: 600_000 }, () => {
  const cp = new ControlPlaneUnderTest(KEY);
  let browser: Browser;
  let deploymentId: string;
  let threadId: string;

  before(async () => {
    await cp.start();
    const [example] = (await cp.get("/v2/deployments?name=example-agent")).resources;
    deploymentId = example.id;
    await cp.waitFor(example.id, example.latest_revision_id, ["DEPLOYED"], 300_000);
    // A thread with a run and its trace, so the threads, chat and trace pages have content.
    const agent = new Client({ apiUrl: `${cp.url}/agents/${deploymentId}`, apiKey: KEY });
    threadId = (await agent.threads.create()).thread_id;
    await agent.runs.wait(threadId, "agent", {
      input: { messages: [{ role: "user", content: "What is the weather in Lisbon?" }] },
    });
    // Feedback on the trace's root, so the trace page shows its feedback list too (issue 30).
    const project = (await cp.get("/v2/tracing-projects?name=example-agent")).resources[0];
    let traceId = "";
    await eventually(
      async () => {
        const [first] = (await cp.get(`/v2/tracing-projects/${project.id}/traces`)).resources;
        traceId = first?.trace_id ?? "";
        return traceId !== "";
      },
      "the run's trace arrives",
      60_000,
    );
    const feedback = await cp.api("POST", "/langsmith-api/feedback", {
      run_id: traceId,
      key: "helpfulness",
      score: 0.5,
      comment: "a long comment that has to wrap on a phone instead of pushing the page sideways",
    });
    assert.equal(feedback.status, 200);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await cp.stop();
    cp.cleanup();
  });

  /** The pages, each with what shows that it has rendered its content. */
  const pages = () => [
    { name: "deployments", path: "/", ready: "tr[data-deployment=example-agent]" },
    { name: "deployment", path: `/deployments/${deploymentId}`, ready: "#revisions li" },
    { name: "logs", path: `/deployments/${deploymentId}/logs`, ready: "#log .line" },
    { name: "threads", path: `/deployments/${deploymentId}/threads`, ready: "#threads li" },
    { name: "chat", path: `/deployments/${deploymentId}/chat?thread=${threadId}`, ready: ".message.ai" },
    { name: "metrics", path: `/deployments/${deploymentId}/metrics`, ready: ".bar-row" },
    { name: "traces", path: `/deployments/${deploymentId}/traces`, ready: "#traces tr a" },
    { name: "trace", path: null, ready: "#run-detail .message" },
    { name: "trace-feedback", path: null, ready: "#run-feedback li" },
    { name: "trace-search", path: `/deployments/${deploymentId}/traces?q=weather`, ready: "#traces tr a" },
    { name: "tracing-projects", path: "/tracing-projects", ready: "#tracing-projects tr" },
    { name: "create", path: "/deployments/new", ready: "input[name=name]" },
  ];

  for (const width of [1280, 390]) {
    it(`at ${width} px nothing overflows the viewport or overlaps`, async () => {
      const page: Page = await browser.newPage({ viewport: { width, height: 844 } });
      await page.goto(`${cp.url}/`);
      await page.fill("input[name=api-key]", KEY);
      await page.click("button[type=submit]");
      // Signed in (the key is checked, then kept for the tab) before the first navigation: a
      // navigation during the check came back to the sign-in form, and the page never rendered.
      await page.locator("header.top").waitFor({ timeout: 60_000 });
      const found: string[] = [];
      for (const { name, path, ready } of pages()) {
        // The trace page is the first trace of the traces page, opened by its link.
        if (path) await page.goto(`${cp.url}${path}`);
        else if (name === "trace") await page.locator("#traces tr a").first().click();
        await page.locator(ready).first().waitFor({ timeout: 60_000 });
        // A deployment's header gets its Studio link once minted: measured with it.
        if (path?.startsWith("/deployments/") && path !== "/deployments/new") {
          await page.locator("#open-in-studio").waitFor({ timeout: 60_000 });
        }
        await screenshot(page, screensDir(cp.temp.dir), `layout-${width}-${name}`);
        const problems = (await page.evaluate(LAYOUT_PROBLEMS)) as string[];
        found.push(...problems.map((p) => `${name}: ${p}`));
      }
      await page.close();
      assert.deepEqual(found, []);
    });
  }
});
