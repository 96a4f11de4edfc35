// The dashboard's chat against a model that streams token by token (issue 28): a project with its
// own node_modules (test/fixtures/streaming-project, installed from its lock file by the build)
// deployed on `berth up`, driven in headless Chromium. The bubble must grow chunk by chunk while
// the run streams (the JS server's chunks say "ai", not "AIMessageChunk"), and Stop must cancel the
// run on the server and then show what the thread holds.
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { repoRoot } from "@berth-platform/testkit";
import { Client } from "@langchain/langgraph-sdk";
import type { Browser, Page } from "playwright-core";
import { browserMissing, launchChromium, screensDir, screenshot, watchErrors } from "./browser-helpers.js";
import { ControlPlaneUnderTest } from "./control-plane-helpers.js";

const KEY = "e2e-chat-streaming-key-0123456789abcdef";
const STREAMING_PROJECT = path.join(repoRoot, "test/fixtures/streaming-project");
const missing = browserMissing();
if (missing) console.log(`# skipping the chat streaming browser tests: ${missing}`);

/** Records in the page the texts the last AI bubble showed, in order, on every DOM change. */
const RECORD_BUBBLE_TEXTS = `(() => {
  const seen = [];
  window.bubbleTexts = seen;
  new MutationObserver(() => {
    const bubbles = document.querySelectorAll(".message.ai .text");
    const text = bubbles[bubbles.length - 1]?.textContent ?? "";
    if (text && text !== seen[seen.length - 1]?.text)
      seen.push({ text, live: document.querySelector(".live") !== null });
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
})()`;

describe("dashboard chat with a token-streaming model", { skip: missing ?? false, timeout: 900_000 }, () => {
  const cp = new ControlPlaneUnderTest(KEY, ["--no-example"]);
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let deploymentId: string;
  let revisionId: string;
  let agent: Client;
  const screens = () => screensDir(cp.temp.dir);

  before(async () => {
    await cp.start();
    // The project's own lock file is installed by the build (the default install command).
    const deployment = await cp.deploySource("streaming-agent", {
      dir: STREAMING_PROJECT,
      installCommand: null,
    });
    deploymentId = deployment.id;
    revisionId = deployment.latest_revision_id;
    await cp.waitFor(deploymentId, revisionId, ["DEPLOYED"], 600_000);
    agent = new Client({ apiUrl: `${cp.url}/agents/${deploymentId}`, apiKey: KEY });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
    page.setDefaultTimeout(60_000);
    errors = watchErrors(page);
    await page.goto(`${cp.url}/`);
    await page.fill("input[name=api-key]", KEY);
    await page.click("button[type=submit]");
    await page.locator("tr[data-deployment=streaming-agent]").waitFor();
  });

  /** Picks the chat's assistant by its graph (the project has two). */
  async function chooseGraph(graph: string): Promise<void> {
    const option = page.locator("select[name=assistant] option", { hasText: `(${graph})` });
    await option.waitFor({ state: "attached" });
    await page.selectOption("select[name=assistant]", (await option.getAttribute("value")) ?? "");
  }

  after(async () => {
    await browser?.close();
    await cp.stop();
    cp.cleanup();
  });

  it("the overview's snippets call the deployment's own graph (streamer), not a hard-coded agent", async () => {
    await page.goto(`${cp.url}/deployments/${deploymentId}`);
    // The header says which revision serves, not the deployment record's own status (READY).
    assert.match(
      await page.locator("#serving").innerText(),
      /internal_source · serving revision …[0-9a-f]{8}/,
    );
    // The deploy log points at the agent URL, not at a Studio link to the agent's own port (403).
    const deployLog = await cp.logText(deploymentId, revisionId, "deploy");
    assert.match(deployLog, /only the control plane's proxy may call it/);
    assert.doesNotMatch(deployLog, /smith\.langchain\.com\/studio/);
    const snippet = page.locator("pre.snippet");
    // Two graphs: the snippets offer both, and name the one chosen.
    const graphs = page.locator("select[name=snippet-graph]");
    await graphs.locator("option").nth(1).waitFor({ state: "attached" });
    assert.deepEqual((await graphs.locator("option").allInnerTexts()).sort(), ["inbox", "streamer"]);
    assert.doesNotMatch(await snippet.innerText(), /"agent"/);
    await graphs.selectOption("streamer");
    await page.locator("pre.snippet", { hasText: '"assistant_id":"streamer"' }).waitFor();
    await page.click(".snippet-tabs button:has-text('JS SDK')");
    assert.match(await snippet.innerText(), /runs\.stream\(thread\.thread_id, "streamer"/);
    await page.click(".snippet-tabs button:has-text('Python SDK')");
    assert.match(await snippet.innerText(), /runs\.stream\(thread\["thread_id"\], "streamer"/);
  });

  it("the answer's bubble grows token by token while the run streams", async () => {
    await page.goto(`${cp.url}/deployments/${deploymentId}/chat`);
    await chooseGraph("streamer");
    await page.evaluate(RECORD_BUBBLE_TEXTS);
    await page.fill("input[name=message]", "count to 20");
    await page.click("form.composer button[type=submit]");
    // Mid-stream: several tokens shown together while the run is still live.
    await page.locator(".message.ai .text", { hasText: "word1 word2 word3" }).waitFor();
    assert.equal(await page.locator(".live").count(), 1, "still streaming");
    await page.locator(".live").waitFor({ state: "detached" });
    const final = Array.from({ length: 20 }, (_, i) => `word${i + 1} `).join("");
    await page.locator(".message.ai .text", { hasText: final.trim() }).waitFor();
    const texts = (await page.evaluate("window.bubbleTexts")) as Array<{ text: string; live: boolean }>;
    const live = texts.filter((t) => t.live).map((t) => t.text);
    // Each text the bubble showed while live is a longer prefix of the answer than the one before.
    assert.ok(
      live.length >= 10,
      `the bubble changed ${live.length} times while live: ${JSON.stringify(live)}`,
    );
    for (const [i, text] of live.entries()) {
      assert.ok(final.startsWith(text), `"${text}" is a prefix of the answer`);
      if (i > 0) assert.ok(text.length > (live[i - 1] ?? "").length, `"${text}" grew`);
    }
    await screenshot(page, screens(), "dashboard-chat-streaming");
    assert.deepEqual(errors, []);
  });

  it("a standard human interrupt is answered with its buttons: Accept, Edit, Respond, Ignore", async () => {
    const ask = async () => {
      await page.click("text=New thread");
      await chooseGraph("inbox");
      await page.fill("input[name=message]", "the weekly report");
      await page.click("form.composer button[type=submit]");
      await page.locator("#interrupt .human-interrupt[data-action=send_email]").waitFor();
      assert.match(await page.locator("#interrupt").innerText(), /Send this email\?[\s\S]*ops@example\.com/);
    };
    const answered = (text: string) => page.locator(".message.ai .text", { hasText: text }).waitFor();

    await ask();
    await screenshot(page, screens(), "dashboard-human-interrupt");
    await page.click("#interrupt button:has-text('Accept')");
    await answered("Sent as drafted.");
    assert.equal(await page.locator("#interrupt").count(), 0);

    await ask();
    await page.click("#interrupt button:has-text('Edit')");
    await page.fill("textarea[name=edit-args]", '{"to": "me@example.com", "subject": "Weekly report"}');
    await page.click("#interrupt button:has-text('Send edited action')");
    await answered('Sent with {"to":"me@example.com","subject":"Weekly report"}.');

    await ask();
    await page.click("#interrupt button:has-text('Respond')");
    await page.fill("textarea[name=response]", "wait until Monday");
    await page.click("#interrupt button:has-text('Send response')");
    await answered("You said: wait until Monday");

    await ask();
    await page.click("#interrupt button:has-text('Ignore')");
    await answered("Not sent.");
    assert.deepEqual(errors, []);
  });

  it("Stop cancels the run on the server, then shows what the thread holds", async () => {
    await page.click("text=New thread");
    await chooseGraph("streamer");
    await page.fill("input[name=message]", "count to 400");
    await page.click("form.composer button[type=submit]");
    await page.locator(".message.ai .text", { hasText: "word1 word2 word3" }).waitFor();
    const threadId = new URL(page.url()).searchParams.get("thread");
    assert.ok(threadId, "the chat names its thread in the URL");
    await page.click("button[name=stop]");
    await page.locator(".live").waitFor({ state: "detached" });
    const [run] = await agent.runs.list(threadId);
    assert.equal(run?.status, "interrupted", "the run was cancelled on the server");
    // Nothing runs on the thread any more (a cancelled step leaves it "interrupted", as the
    // official server does: the model node is still next).
    const thread = await agent.threads.get(threadId);
    assert.notEqual(thread.status, "busy");
    // The page shows the thread's state: the question, without the partial answer of the
    // cancelled step (the state never held it).
    const state = await agent.threads.getState<{ messages: Array<{ type: string }> }>(threadId);
    assert.deepEqual(
      state.values.messages.map((m) => m.type),
      ["human"],
    );
    await page.locator(".message.ai").waitFor({ state: "detached" });
    assert.equal(await page.locator(".message.user").count(), 1);
    assert.deepEqual(errors, []);
  });
});
