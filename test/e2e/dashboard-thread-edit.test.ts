// The dashboard as Studio (issue 28): a state edited at a checkpoint forks the thread and runs from
// there; interrupts that are not the standard human shape get a typed form — from the interrupt's
// response schema (`interrupt(value, {responseSchema})`), else from the value's own shape — with
// raw JSON a click away. A fixture project (linked to Berth's node_modules) on `berth up`, driven in
// headless Chromium.
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { repoRoot } from "@berth-platform/testkit";
import { Client } from "@langchain/langgraph-sdk";
import type { Browser, Page } from "playwright-core";
import { browserMissing, launchChromium, screensDir, screenshot, watchErrors } from "./browser-helpers.js";
import { ControlPlaneUnderTest } from "./control-plane-helpers.js";

const KEY = "e2e-thread-edit-key-0123456789abcdef";
const FORMS_PROJECT = path.join(repoRoot, "test/fixtures/forms-project");
const missing = browserMissing();
if (missing) console.log(`# skipping the checkpoint editor browser tests: ${missing}`);

type Message = { type: string; content: unknown; id?: string };

describe("dashboard: checkpoint edit and fork, typed interrupt forms", {
  skip: missing ?? false,
  timeout: 600_000,
}, () => {
  const cp = new ControlPlaneUnderTest(KEY, ["--no-example"]);
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let deploymentId: string;
  let agent: Client;
  const screens = () => screensDir(cp.temp.dir);

  before(async () => {
    await cp.start();
    const deployment = await cp.deploySource("forms", { dir: FORMS_PROJECT });
    deploymentId = deployment.id;
    await cp.waitFor(deploymentId, deployment.latest_revision_id, ["DEPLOYED"], 300_000);
    agent = new Client({ apiUrl: `${cp.url}/agents/${deploymentId}`, apiKey: KEY });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
    page.setDefaultTimeout(60_000);
    errors = watchErrors(page);
    await page.goto(`${cp.url}/`);
    await page.fill("input[name=api-key]", KEY);
    await page.click("button[type=submit]");
    await page.locator("tr[data-deployment=forms]").waitFor();
  });

  after(async () => {
    await browser?.close();
    await cp.stop();
    cp.cleanup();
  });

  /** Opens the chat with a new thread on `graph` and sends `text`. */
  async function chatWith(graph: string, text: string): Promise<void> {
    await page.goto(`${cp.url}/deployments/${deploymentId}/chat`);
    const option = page.locator("select[name=assistant] option", { hasText: `(${graph})` });
    await option.waitFor({ state: "attached" });
    await page.selectOption("select[name=assistant]", (await option.getAttribute("value")) ?? "");
    await page.fill("input[name=message]", text);
    await page.click("form.composer button[type=submit]");
    await page.locator("#interrupt").waitFor();
  }

  it("a state edited at a checkpoint forks the thread and runs from there; the old branch stays", async () => {
    const thread = await agent.threads.create();
    await agent.runs.wait(thread.thread_id, "echo", {
      input: { messages: [{ role: "user", content: "hello" }] },
    });
    const before = await agent.threads.getHistory(thread.thread_id, { limit: 20 });
    // The checkpoint before the echo node ran: the user's message only, echo next.
    const target = before.find((s) => s.next.includes("echo"));
    const targetId = target?.checkpoint?.checkpoint_id;
    assert.ok(targetId, JSON.stringify(before.map((s) => s.next)));

    await page.goto(`${cp.url}/deployments/${deploymentId}/threads?thread=${thread.thread_id}`);
    await page.locator("#thread-detail .message.ai", { hasText: "echo: hello" }).waitFor();
    await page.click("#thread-detail button:has-text('checkpoints')");
    await page.click(`#checkpoints tr[data-checkpoint="${targetId}"] button:has-text('Edit')`);
    const editor = page.locator(`#checkpoint-editor[data-checkpoint="${targetId}"]`);
    await editor.waitFor();
    // The state schema types the field: messages is structured (JSON).
    assert.equal(await editor.locator(".field[data-kind=json] textarea[name=field-messages]").count(), 1);
    const messages = editor.locator("textarea[name=field-messages]");
    const text = await messages.inputValue();
    assert.match(text, /"hello"/);
    await messages.fill(text.replace('"hello"', '"bonjour"'));
    await screenshot(page, screens(), "dashboard-checkpoint-edit");
    await editor.locator("button:has-text('Fork and run')").click();
    await page.locator("#thread-detail .message.ai", { hasText: "echo: bonjour" }).waitFor();
    assert.equal(await page.locator("#checkpoint-editor").count(), 0);

    const state = await agent.threads.getState<{ messages: Message[] }>(thread.thread_id);
    assert.deepEqual(
      state.values.messages.map((m) => [m.type, m.content]),
      [
        ["human", "bonjour"],
        ["ai", "echo: bonjour"],
      ],
    );
    const history = await agent.threads.getHistory<{ messages: Message[] }>(thread.thread_id, { limit: 50 });
    const fork = history.find(
      (s) => s.parent_checkpoint?.checkpoint_id === targetId && s.metadata?.source === "update",
    );
    assert.ok(fork, "a new checkpoint branches off the edited one");
    assert.ok(
      history.some((s) => s.values.messages?.some((m) => m.content === "echo: hello")),
      "the old branch is still in the history",
    );
    assert.deepEqual(errors, []);
  });

  it("an interrupt with a response schema gets a typed form; bad input is refused in the form", async () => {
    await chatWith("form", "send the report");
    const box = page.locator("#interrupt .generic-interrupt[data-schema=yes][data-mode=form]");
    await box.waitFor();
    assert.match(
      await box.locator(".interrupt-value").innerText(),
      /question\s+How should the report go out\?/,
    );
    assert.equal(await box.locator("input[type=checkbox][name=field-approved]").count(), 1);
    assert.equal(await box.locator("input[type=number][name=field-copies]").count(), 1);
    assert.equal(await box.locator("input[type=text][name=field-note]").count(), 1);
    // Raw JSON is a click away, with the schema it came with.
    await box.locator("button[name=raw-json]").click();
    assert.match(await box.locator("pre.json").innerText(), /"response_schema"[\s\S]*"copies"/);
    await box.locator("input[name=field-note]").fill("ship it");
    await box.locator("button[type=submit]").click();
    await box.locator(".field-error", { hasText: "copies must be a number" }).waitFor();
    await box.locator("input[name=field-approved]").check();
    await box.locator("input[name=field-copies]").fill("3");
    assert.equal(await box.locator(".field-error").count(), 0, "an edited field's complaint goes");
    await box.locator("button[name=raw-json]").click();
    await screenshot(page, screens(), "dashboard-typed-interrupt");
    await box.locator("button[type=submit]").click();
    await page
      .locator(".message.ai .text", { hasText: 'Answer: {"approved":true,"copies":3,"note":"ship it"}' })
      .waitFor();
    assert.equal(await page.locator("#interrupt").count(), 0);
    assert.deepEqual(errors, []);
  });

  it("without a schema the value's own shape types the form (text is the default answer)", async () => {
    await chatWith("shaped", "rename it");
    const box = page.locator("#interrupt .generic-interrupt[data-schema=no]");
    await box.waitFor();
    assert.equal(await box.getAttribute("data-mode"), "text");
    assert.equal(await box.locator("input[name=answer]").count(), 1);
    await box.locator("button[name=mode-form]").click();
    assert.equal(await box.locator("input[name=field-name]").inputValue(), "draft.txt");
    assert.equal(await box.locator("input[type=number][name=field-size]").inputValue(), "3");
    assert.equal(await box.locator("input[type=checkbox][name=field-overwrite]").isChecked(), false);
    await box.locator("input[name=field-name]").fill("final.txt");
    await box.locator("input[name=field-overwrite]").check();
    await box.locator("button[type=submit]").click();
    await page
      .locator(".message.ai .text", {
        hasText: 'Got: {"title":"Rename the file","name":"final.txt","overwrite":true,"size":3}',
      })
      .waitFor();
    assert.deepEqual(errors, []);
  });

  it("each deployment page links to LangGraph Studio with a base URL the browser can reach", async () => {
    await page.goto(`${cp.url}/deployments/${deploymentId}/threads`);
    const link = page.locator("#open-in-studio");
    await link.waitFor();
    assert.equal(await link.getAttribute("target"), "_blank");
    const studio = new URL((await link.getAttribute("href")) ?? "");
    assert.equal(`${studio.origin}${studio.pathname}`, "https://smith.langchain.com/studio/");
    const baseUrl = studio.searchParams.get("baseUrl") ?? "";
    assert.match(baseUrl, new RegExp(`^${cp.url}/studio/s1\\.`));
    // What Studio calls first, from its origin, without a key: the link is the credential.
    const info = await fetch(`${baseUrl}/assistants/search`, {
      method: "POST",
      headers: { Origin: "https://smith.langchain.com", "content-type": "application/json" },
      body: JSON.stringify({ graph_id: "echo" }),
    });
    assert.equal(info.status, 200);
    assert.equal(((await info.json()) as { graph_id: string }[])[0]?.graph_id, "echo");
    assert.deepEqual(errors, []);
  });
});
