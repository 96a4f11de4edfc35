// The web dashboard in headless Chromium, through `berth up` (built CLI, ephemeral port, the
// bundled example-agent): sign-in, the deployments list, logs, chat with streaming and tool calls,
// an interrupt resumed, a secret changed into a new revision, the official CLI's status link.
// Screenshots of the main pages go to a temporary directory, or to docs/screens/ (linked from the
// README) under `npm run screenshots`.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { packDirectory } from "@berth-platform/testkit";
import type { Browser, Page } from "playwright-core";
import { browserMissing, launchChromium, screensDir, screenshot, watchErrors } from "./browser-helpers.js";
import { ControlPlaneUnderTest, eventually, LINK_INSTALL, RUNTIME_PROJECT } from "./control-plane-helpers.js";

const KEY = "e2e-dashboard-key-0123456789abcdef";
const missing = browserMissing();
if (missing) console.log(`# skipping the dashboard browser tests: ${missing}`);

describe("dashboard in Chromium", { skip: missing ?? false, timeout: 420_000 }, () => {
  const cp = new ControlPlaneUnderTest(KEY);
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let example: { id: string; tenant_id: string; latest_revision_id: string };
  const screens = () => screensDir(cp.temp.dir);

  before(async () => {
    await cp.start();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
    page.setDefaultTimeout(30_000);
    errors = watchErrors(page);
    const list = await cp.get("/v2/deployments?name=example-agent");
    example = list.resources[0];
    assert.ok(example, "berth up created example-agent");
  });

  after(async () => {
    await browser?.close();
    await cp.stop();
    cp.cleanup();
  });

  it("a wrong key shows an error on the sign-in page, not a blank page", async () => {
    await page.goto(`${cp.url}/`);
    await screenshot(page, screens(), "dashboard-sign-in");
    await page.fill("input[name=api-key]", "berth_not-a-real-key-000000000000");
    await page.click("button[type=submit]");
    const error = page.locator("[role=alert]");
    await error.waitFor();
    assert.match(await error.innerText(), /not accepted.*401/s);
    assert.equal(await page.locator("input[name=api-key]").isVisible(), true);
    // The 401 it was given, and nothing else went wrong.
    assert.deepEqual(
      errors.map((e) => e.replace(/http:\/\/[^/]+/, "")),
      ["401 GET /api/v1/workspaces"],
    );
    errors.length = 0;
  });

  it("signs in with the key and lists example-agent, DEPLOYED, with its agent URL", async () => {
    await page.fill("input[name=api-key]", KEY);
    await page.click("button[type=submit]");
    const row = page.locator("tr[data-deployment=example-agent]");
    await row.locator(".badge[data-status=DEPLOYED]").waitFor({ timeout: 120_000 });
    assert.match(await row.innerText(), /internal_template/);
    assert.match(await row.innerText(), new RegExp(`/agents/${example.id}`));
    // The key is kept for this tab only.
    assert.equal(await page.evaluate("sessionStorage.getItem('berth.apiKey')"), KEY);
    assert.equal(await page.evaluate("localStorage.length"), 0);
    assert.equal((await page.context().cookies()).length, 0);
    await screenshot(page, screens(), "dashboard-deployments");
  });

  it("the name filter narrows the list; the create form shows the API's message next to the field", async () => {
    await page.fill("input[name=name-filter]", "no-such-deployment");
    await page.locator(".empty").waitFor();
    await page.fill("input[name=name-filter]", "example");
    await page.locator("tr[data-deployment=example-agent]").waitFor();
    await page.click("text=New deployment");
    await page.fill("input[name=name]", "Not_A_Valid_Name");
    await page.click("button[type=submit]");
    const fieldError = page.locator("[data-field=name] .field-error");
    await fieldError.waitFor();
    assert.match(await fieldError.innerText(), /lowercase/);
    assert.deepEqual(
      errors.map((e) => e.replace(/http:\/\/[^/]+/, "")),
      ["400 POST /v2/deployments"],
    );
    errors.length = 0;
    await page.goto(`${cp.url}/`);
  });

  it("opens the deployment: revisions timeline, agent URL and snippets, then the build log", async () => {
    await page.click("tr[data-deployment=example-agent] a");
    await page.locator("#revisions li[data-status=DEPLOYED]").waitFor();
    assert.match(await page.locator("#agent-url").innerText(), new RegExp(`/agents/${example.id}$`));
    assert.match(await page.locator("pre.snippet").innerText(), /runs\/wait/);
    await screenshot(page, screens(), "dashboard-deployment");
    await page.locator("#revisions li").first().locator("text=Build log").click();
    await page.locator("#log .line").first().waitFor();
    assert.match(await page.locator("#log").innerText(), /berth dev --check|graph|install/i);
    await screenshot(page, screens(), "dashboard-build-log");
  });

  it("chats with the agent: the answer streams in and the tool call is shown", async () => {
    await page.goto(`${cp.url}/deployments/${example.id}/chat`);
    await page.locator("select[name=assistant] option").first().waitFor({ state: "attached" });
    await page.fill("input[name=message]", "What is the weather in Lisbon?");
    const stream = page.waitForResponse((r) =>
      /\/agents\/[^/]+\/threads\/[^/]+\/runs\/stream$/.test(r.url()),
    );
    await page.click("form.composer button[type=submit]");
    const response = await stream;
    assert.equal(response.status(), 200);
    assert.match((await response.allHeaders())["content-type"] ?? "", /text\/event-stream/);
    await page.locator(".tool-call[data-tool=get_weather]").waitFor();
    await page.locator(".message.tool", { hasText: "Lisbon" }).waitFor();
    await page.locator(".message.ai .text", { hasText: "Here is what I found" }).waitFor();
    await screenshot(page, screens(), "dashboard-chat");
  });

  it("resumes an interrupt of the review graph from the resume form", async () => {
    await page.click("text=New thread");
    const review = await page
      .locator("select[name=assistant] option", { hasText: "(review)" })
      .getAttribute("value");
    assert.ok(review);
    await page.selectOption("select[name=assistant]", review);
    await page.fill("input[name=message]", "the quarterly report");
    await page.click("form.composer button[type=submit]");
    const form = page.locator("#interrupt");
    await form.waitFor();
    assert.match(await form.innerText(), /Approve this draft/);
    await screenshot(page, screens(), "dashboard-interrupt");
    // No response schema: a text answer by default (the value's fields are one click away).
    await page.fill("#interrupt input[name=answer]", "approve");
    await page.click("#interrupt button[type=submit]");
    await page
      .locator(".message.ai .text", { hasText: "Approved: Draft reply about: the quarterly report" })
      .waitFor();
    assert.equal(await page.locator("#interrupt").count(), 0);
  });

  it("shows threads with their messages, checkpoints and runs, and the agent's metrics", async () => {
    await page.goto(`${cp.url}/deployments/${example.id}/threads`);
    await page.locator("#threads li").nth(1).waitFor();
    // A thread is named by its first message and its graph, not by its id alone.
    const weather = page.locator("#threads li", { hasText: "What is the weather in Lisbon?" });
    await weather.waitFor();
    assert.match(await weather.locator(".tag").innerText(), /^agent$/);
    await page.locator("#threads li a").first().click();
    await page.locator("#thread-detail .message").first().waitFor();
    await page.click("#thread-detail button:has-text('runs')");
    await page.locator("#runs .badge[data-status=success]").first().waitFor();
    await screenshot(page, screens(), "dashboard-threads");
    await page.goto(`${cp.url}/deployments/${example.id}/metrics`);
    await page.locator(".bar-row", { hasText: "success" }).first().waitFor();
    // Each chart has its axes: its maximum and 0, and the time range up to now.
    await page
      .locator("#metrics svg.chart .axis text", { hasText: /^−\d+ s$/ })
      .first()
      .waitFor();
    const [max, zero, since, now] = await page
      .locator("#metrics svg.chart")
      .first()
      .locator(".axis text")
      .allTextContents();
    assert.match(max ?? "", /^\d+$/);
    assert.equal(zero, "0");
    assert.match(since ?? "", /^−\d+ s$/);
    assert.equal(now, "now");
    await screenshot(page, screens(), "dashboard-metrics");
  });

  it("traces (issue 17): a thread's run links to its trace; a trace shows the tree, the model call's tokens, the tool call", async () => {
    await page.goto(`${cp.url}/deployments/${example.id}/threads`);
    await page.locator("#threads li a").first().click();
    await page.click("#thread-detail button:has-text('runs')");
    const link = page.locator("#runs a", { hasText: "Trace" }).first();
    await link.waitFor();
    assert.match((await link.getAttribute("href")) ?? "", /\/traces\?run_id=/);
    await link.click();
    // The only trace of that agent run opens by itself (once its runs have arrived).
    await page.locator("#trace #run-tree tr").first().waitFor({ timeout: 60_000 });

    // The chat's weather question: a trace with tokens, its model calls and the tool call.
    await page.goto(`${cp.url}/deployments/${example.id}/traces`);
    const withTokens = page.locator("#traces tr[data-tokens]:not([data-tokens='0']) a").first();
    await withTokens.waitFor({ timeout: 60_000 });
    assert.match(await page.locator("#trace-stats").innerText(), /\d+ traces · \d+ errors · p50 .* tokens/);
    await withTokens.click();
    await page.locator("#run-tree tr[data-run-type=tool][data-run=get_weather]").waitFor();
    await page.locator("#run-tree tr[data-run=agent]").first().waitFor();
    await page.locator("#run-tree tr[data-run=tools]").first().waitFor();
    await page.locator("#run-tree tr[data-run-type=llm] button").first().click();
    const detail = page.locator("#run-detail");
    await detail.locator("text=/\\d+ tokens \\(prompt \\d+, completion \\d+\\)/").waitFor();
    assert.match(await detail.innerText(), /Lisbon/);
    await screenshot(page, screens(), "dashboard-trace");
    // The workspace's tracing projects list names the deployment's project.
    await page.click("header.top a:has-text('Tracing')");
    await page.locator("#tracing-projects tr[data-project=example-agent]").waitFor();
  });

  it("a changed secret makes a new revision, followed to DEPLOYED", async () => {
    await page.goto(`${cp.url}/deployments/${example.id}`);
    await page.locator("#revisions li").first().waitFor();
    const before = await page.locator("#revisions li").count();
    await page.click("text=Add secret");
    await page.fill("input[name=secret-name-0]", "DASHBOARD_SECRET");
    await page.fill("input[name=secret-value-0]", "s3cr3t-value-from-the-browser");
    await page.click("text=Save secrets (new revision)");
    await page.locator("#revisions li").nth(before).waitFor();
    await page
      .locator("#revisions li")
      .first()
      .and(page.locator("[data-status=DEPLOYED]"))
      .waitFor({ timeout: 120_000 });
    const deployment = await cp.get(`/v2/deployments/${example.id}`);
    assert.deepEqual(deployment.secrets, [{ name: "DASHBOARD_SECRET", value: "********" }]);
    assert.notEqual(deployment.latest_revision_id, example.latest_revision_id);
    // The value never comes back to the page.
    assert.doesNotMatch(await page.content(), /s3cr3t-value-from-the-browser/);
  });

  it("creates a deployment from an uploaded archive (the upload-url flow), which reaches DEPLOYED", async () => {
    const archive = path.join(cp.temp.dir, "project.tar.gz");
    fs.writeFileSync(archive, packDirectory(RUNTIME_PROJECT));
    await page.goto(`${cp.url}/deployments/new`);
    await page.check("input[name=kind][value=upload]");
    await page.fill("input[name=name]", "uploaded-agent");
    await page.setInputFiles("input[name=archive]", archive);
    await page.fill("input[name=graph_config_path]", "graph.json");
    await page.fill("input[name=install_command]", LINK_INSTALL);
    await page.click("button[type=submit]");
    await page.locator("h1", { hasText: "uploaded-agent" }).waitFor();
    await page.locator("#revisions li[data-status=DEPLOYED]").waitFor({ timeout: 120_000 });
    const [deployment] = (await cp.get("/v2/deployments?name=uploaded-agent")).resources;
    assert.equal(deployment.source, "internal_source");
    assert.match(deployment.source_revision_config.source_tarball_path, /./);
  });

  it("interrupts a revision while it builds, and redeploys it as a new revision", async () => {
    // A build that waits, so the Interrupt button is there to click.
    const slow = await cp.deploySource("slow-agent", { installCommand: `sleep 60; ${LINK_INSTALL}` });
    await page.goto(`${cp.url}/deployments/${slow.id}`);
    const first = page.locator("#revisions li").first();
    await page.locator("#revisions li[data-status=BUILDING]").waitFor({ timeout: 60_000 });
    await first.locator("button:has-text('Interrupt')").click();
    await page.locator("#revisions li[data-status=INTERRUPTED]").waitFor();
    const before = (await cp.get(`/v2/deployments/${slow.id}/revisions`)).resources;
    await first.locator("button:has-text('Redeploy')").click();
    await page.locator("#revisions li").nth(before.length).waitFor();
    const after = (await cp.get(`/v2/deployments/${slow.id}/revisions`)).resources;
    assert.equal(after.length, before.length + 1);
    assert.equal(after[1].id, before[0].id);
    assert.equal(after[1].status, "INTERRUPTED");
    // The redeployed revision builds the same way; it is interrupted too (no build left waiting).
    await page.locator("#revisions li").first().locator("button:has-text('Interrupt')").click();
    await page.locator("#revisions li").first().and(page.locator("[data-status=INTERRUPTED]")).waitFor();
  });

  it("deletes a deployment after its name is typed to confirm", async () => {
    const [deployment] = (await cp.get("/v2/deployments?name=uploaded-agent")).resources;
    await page.goto(`${cp.url}/deployments/${deployment.id}`);
    await page.click("button:has-text('Delete deployment')");
    const confirm = page.locator("[role=dialog] button.danger");
    assert.equal(await confirm.isDisabled(), true);
    await page.fill("input[name=confirm-name]", "uploaded-agent");
    await confirm.click();
    await page.waitForURL(`${cp.url}/`);
    await eventually(
      async () => (await cp.api("GET", `/v2/deployments/${deployment.id}`)).status === 404,
      "the deployment is gone",
      60_000,
    );
    // The list may have asked for the revisions of the deployment while it was going (a 404).
    errors.splice(0, errors.length, ...errors.filter((e) => !e.includes(deployment.id)));
  });

  it("the official CLI's status link opens the deployment page", async () => {
    await page.goto(`${cp.url}/o/${example.tenant_id}/host/deployments/${example.id}`);
    await page.waitForURL(`${cp.url}/deployments/${example.id}`);
    await page.locator("h1", { hasText: "example-agent" }).waitFor();
    assert.deepEqual(errors, []);
  });

  it("a key of two workspaces gets a switcher; each workspace shows its own deployments", async () => {
    const created = await cp.api("POST", "/api/v1/workspaces", { display_name: "staging" });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    // A new tab of this origin signs in again (the key's workspaces are read at sign-in).
    await page.evaluate("sessionStorage.clear()");
    await page.goto(`${cp.url}/`);
    await page.fill("input[name=api-key]", KEY);
    await page.click("button[type=submit]");
    const switcher = page.locator("select[aria-label=Workspace]");
    await switcher.waitFor();
    await page.locator("tr[data-deployment=example-agent]").waitFor();
    await switcher.selectOption(created.json.id);
    await page.locator(".empty", { hasText: "No deployments" }).waitFor();
    assert.equal(await page.locator("tr[data-deployment=example-agent]").count(), 0);
    // The status link of a deployment in the other workspace switches back to it.
    await page.goto(`${cp.url}/o/${example.tenant_id}/host/deployments/${example.id}`);
    await page.locator("h1", { hasText: "example-agent" }).waitFor();
    assert.equal(await switcher.inputValue(), example.tenant_id);
    assert.deepEqual(errors, []);
  });
});
