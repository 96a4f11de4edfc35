// The trace page in headless Chromium (issue 30), through `berth up --no-example` with traces sent
// by the official langsmith SDK: a conversation rendered from serialized LangChain messages (tool
// call, tool result, raw JSON a click away), tags, a trace whose child failed shown as failed and
// found by the error filter, a search across the project, feedback on a run (created with the
// SDK's createFeedback), cost from the price table, the charts' range, and the "send traces here"
// snippet.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { Client } from "langsmith";
import type { Browser, Page } from "playwright-core";
import {
  browserMissing,
  LAYOUT_PROBLEMS,
  launchChromium,
  screensDir,
  screenshot,
  watchErrors,
} from "./browser-helpers.js";
import { ControlPlaneUnderTest } from "./control-plane-helpers.js";

const KEY = "e2e-dashboard-traces-key-0123456789abcdef";
const PROJECT = "e2e-traces";
const missing = browserMissing();
const TAGS: Record<string, unknown> = { tags: ["prod", "e2e"] };

const lc = (cls: string, kwargs: Record<string, unknown>) => ({
  lc: 1,
  type: "constructor",
  id: ["langchain_core", "messages", cls],
  kwargs,
});

const question = lc("HumanMessage", { content: "What is the weather in Lisbon?" });
const toolCall = lc("AIMessage", {
  content: "",
  tool_calls: [{ id: "call_w1", name: "get_weather", args: { city: "Lisbon" } }],
});
const toolResult = lc("ToolMessage", {
  content: "22 °C, sunny",
  name: "get_weather",
  tool_call_id: "call_w1",
});
const answer = lc("AIMessage", { content: [{ type: "text", text: "It is sunny in Lisbon, 22 °C." }] });

/** `<time>Z<id>` as LangSmith's dotted order writes one segment. */
function segment(at: Date, id: string): string {
  return `${at.toISOString().replace(/[-:.]/g, "").replace("Z", "")}000Z${id}`;
}

describe("dashboard trace page in Chromium", { skip: missing ?? false, timeout: 300_000 }, () => {
  const cp = new ControlPlaneUnderTest(KEY, ["--no-example"]);
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const weatherId = randomUUID();
  const stocksId = randomUUID();
  const modelId = randomUUID();

  before(async () => {
    await cp.start();
    const ls = new Client({ apiUrl: `${cp.url}/langsmith-api`, apiKey: KEY, autoBatchTracing: false });
    const t0 = new Date(Date.now() - 5_000);
    const at = (ms: number) => new Date(t0.getTime() + ms);
    const rootDotted = segment(t0, weatherId);
    const newsId = randomUUID();
    const common = { project_name: PROJECT, trace_id: weatherId };
    await ls.createRun({
      ...common,
      id: weatherId,
      dotted_order: rootDotted,
      name: "weather-agent",
      run_type: "chain",
      start_time: t0.getTime(),
      end_time: at(1_200).getTime(),
      inputs: { messages: [question] },
      outputs: { messages: [question, toolCall, toolResult, answer] },
      // The SDK sends tags (RunTree does) though createRun's type leaves them out.
      ...TAGS,
      extra: { metadata: { customer: "north-wind" } },
    });
    await ls.createRun({
      ...common,
      id: modelId,
      parent_run_id: weatherId,
      dotted_order: `${rootDotted}.${segment(at(10), modelId)}`,
      name: "ChatModel",
      run_type: "llm",
      start_time: at(10).getTime(),
      end_time: at(600).getTime(),
      // Priced by the shipped table: 40 × $0.15/M + 12 × $0.60/M = $0.0000132.
      extra: { metadata: { ls_model_name: "gpt-4o-mini" } },
      inputs: { messages: [[lc("SystemMessage", { content: "Answer briefly." }), question]] },
      outputs: {
        generations: [
          [
            {
              text: "",
              message: lc("AIMessageChunk", {
                content: "",
                tool_calls: toolCall.kwargs.tool_calls,
                usage_metadata: { input_tokens: 40, output_tokens: 12, total_tokens: 52 },
              }),
            },
          ],
        ],
      },
    });
    await ls.createRun({
      ...common,
      id: newsId,
      parent_run_id: weatherId,
      dotted_order: `${rootDotted}.${segment(at(700), newsId)}`,
      name: "lookup_news",
      run_type: "tool",
      start_time: at(700).getTime(),
      end_time: at(900).getTime(),
      inputs: { input: "Lisbon" },
      error: "ToolException: the news service timed out",
    });
    await ls.createRun({
      project_name: PROJECT,
      id: stocksId,
      trace_id: stocksId,
      dotted_order: segment(at(2_000), stocksId),
      name: "stocks-agent",
      run_type: "chain",
      start_time: at(2_000).getTime(),
      end_time: at(2_300).getTime(),
      inputs: { question: "Stock price of ACME?" },
      outputs: { answer: "ACME trades at 42." },
    });
    // Feedback through the public API, as the SDK sends it.
    await ls.createFeedback(weatherId, "correctness", { score: 1, comment: "right city" });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(30_000);
    errors = watchErrors(page);
    await page.goto(`${cp.url}/`);
    await page.fill("input[name=api-key]", KEY);
    await page.click("button[type=submit]");
    await page.locator("header.top").waitFor();
  });

  after(async () => {
    await browser?.close();
    await cp.stop();
    cp.cleanup();
  });

  it("the projects page says where to send traces: this origin, the key, the project", async () => {
    await page.goto(`${cp.url}/tracing-projects`);
    const snippet = page.locator("#send-traces");
    await snippet.waitFor();
    const env = await page.locator("#trace-env").innerText();
    assert.match(env, new RegExp(`LANGSMITH_ENDPOINT=${cp.url}\\n`));
    assert.match(env, /LANGSMITH_API_KEY=\$BERTH_API_KEY/);
    assert.match(env, /LANGSMITH_PROJECT=default/);
    assert.match(await snippet.innerText(), /\/langsmith-api/);
    assert.ok(!(await page.content()).includes(KEY), "the page never prints the session's key");
    await page.click(`#tracing-projects tr[data-project=${PROJECT}] a`);
    await page.locator("#traces tr[data-trace]").first().waitFor();
    assert.match(await page.locator("#send-traces summary").innerText(), new RegExp(`project ${PROJECT}`));
  });

  it("a trace whose child failed is failed, and the error filter finds it", async () => {
    assert.equal(
      await page.locator(`#traces tr[data-trace='${weatherId}']`).getAttribute("data-status"),
      "error",
    );
    assert.equal(
      await page.locator(`#traces tr[data-trace='${stocksId}']`).getAttribute("data-status"),
      "success",
    );
    // The tree's cost (its model run's, from the tracing package's price table).
    assert.match(await page.locator(`#traces tr[data-trace='${weatherId}']`).innerText(), /\$0\.000013/);
    await page.selectOption("select[aria-label='Trace status']", "error");
    await page.locator(`#traces tr[data-trace='${stocksId}']`).waitFor({ state: "detached" });
    assert.equal(await page.locator("#traces tr[data-trace]").count(), 1);
    await page.selectOption("select[aria-label='Trace status']", "");
    await page.locator(`#traces tr[data-trace='${stocksId}']`).waitFor();
  });

  it("a search finds traces by the text of any of their runs", async () => {
    await page.fill("input[name=trace-search]", "acme");
    await page.locator(`#traces tr[data-trace='${weatherId}']`).waitFor({ state: "detached" });
    assert.deepEqual(
      await page
        .locator("#traces tr[data-trace]")
        .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-trace"))),
      [stocksId],
    );
    assert.match(page.url(), /[?&]q=acme/);
    // Metadata of the root, a model's output message (tool call arguments) of a child.
    await page.fill("input[name=trace-search]", "north-wind");
    await page.locator(`#traces tr[data-trace='${weatherId}']`).waitFor();
    await page.locator(`#traces tr[data-trace='${stocksId}']`).waitFor({ state: "detached" });
    await page.fill("input[name=trace-search]", "no trace says this");
    await page.locator(".empty", { hasText: "match these filters" }).waitFor();
    await page.fill("input[name=trace-search]", "");
    await page.locator(`#traces tr[data-trace='${stocksId}']`).waitFor();
    await screenshot(page, screensDir(cp.temp.dir), "dashboard-trace-search");
  });

  it("the trace shows its messages as a conversation, tags and feedback; the raw JSON is a click away", async () => {
    await page.click(`#traces tr[data-trace='${weatherId}'] a`);
    const detail = page.locator("#run-detail[data-run=weather-agent]");
    await detail.waitFor();
    assert.equal(await page.locator("#trace").getAttribute("data-status"), "error");
    const outputs = detail.locator(".run-value[data-part=outputs]");
    await outputs.locator(".message").first().waitFor();
    assert.deepEqual(
      await outputs.locator(".message").evaluateAll((ms) => ms.map((m) => m.getAttribute("data-role"))),
      ["human", "ai", "tool", "ai"],
    );
    assert.match(await outputs.locator(".message.human").innerText(), /weather in Lisbon/);
    assert.match(await outputs.locator(".tool-call[data-tool=get_weather]").innerText(), /"city":"Lisbon"/);
    assert.match(await outputs.locator(".message.tool").innerText(), /get_weather[\s\S]*22 °C, sunny/i);
    assert.match(await outputs.locator(".message.ai").last().innerText(), /sunny in Lisbon/);
    assert.equal(await outputs.locator("pre.json").count(), 0);
    await outputs.locator("button.raw-toggle").click();
    assert.match(await outputs.locator("pre.json").innerText(), /"lc": 1[\s\S]*"AIMessage"/);
    await outputs.locator("button.raw-toggle").click();
    await outputs.locator(".message").first().waitFor();
    // Tags and the feedback created through the API.
    assert.deepEqual(
      await detail.locator(".run-tag").evaluateAll((ts) => ts.map((t) => t.getAttribute("data-tag"))),
      ["prod", "e2e"],
    );
    const feedback = detail.locator("#run-feedback li[data-key=correctness]");
    await feedback.waitFor();
    assert.match(await feedback.innerText(), /correctness[\s\S]*score 1[\s\S]*right city/);
    await screenshot(page, screensDir(cp.temp.dir), "dashboard-trace-conversation");
    // The model run: its prompt (a batch of messages) and its generation's tool call.
    await page.click("#run-tree tr[data-run=ChatModel] button.link");
    const model = page.locator("#run-detail[data-run=ChatModel]");
    await model.locator(".run-value[data-part=inputs] .message.system").waitFor();
    assert.match(await model.locator(".run-value[data-part=outputs] .tool-call").innerText(), /get_weather/);
    assert.match(await model.innerText(), /52 tokens/);
    assert.match(
      await model.locator("#run-cost").innerText(),
      /Cost \$0\.000013 \(prompt \$0\.0000060, completion \$0\.0000072\)/,
    );
    assert.match(await page.locator("#trace").innerText(), /\$0\.000013/);
    // The failed child: its error; no feedback section where there is none.
    await page.click("#run-tree tr[data-run=lookup_news] button.link");
    const news = page.locator("#run-detail[data-run=lookup_news]");
    await news.locator(".run-error").waitFor();
    assert.equal(await news.locator("#run-feedback").count(), 0);
  });

  it("a run's LangSmith-style link (app_path, what getRunUrl opens) opens that run in its trace", async () => {
    const [workspace] = (await cp.get("/api/v1/workspaces")) as Array<{ id: string }>;
    const project = (await cp.get(`/v2/tracing-projects?name=${PROJECT}`)).resources[0];
    await page.goto(`${cp.url}/o/${workspace?.id}/projects/p/${project.id}/r/${modelId}`);
    await page.locator("#run-detail[data-run=ChatModel]").waitFor();
    assert.equal(await page.locator("#trace").getAttribute("data-trace"), weatherId);
    assert.match(page.url(), new RegExp(`selected_run=${modelId}`));
    // Selecting another run puts it in the URL; reloading opens it again.
    await page.click("#run-tree tr[data-run=lookup_news] button.link");
    await page.reload();
    await page.locator("#run-detail[data-run=lookup_news]").waitFor();
  });

  it("at 390 px the conversation, its raw JSON, tags and feedback fit the screen", async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await phone.goto(`${cp.url}/`);
    await phone.fill("input[name=api-key]", KEY);
    await phone.click("button[type=submit]");
    await phone.locator("header.top").waitFor();
    const project = (await cp.get(`/v2/tracing-projects?name=${PROJECT}`)).resources[0];
    await phone.goto(`${cp.url}/tracing-projects/${project.id}?trace=${weatherId}`);
    const outputs = phone.locator("#run-detail .run-value[data-part=outputs]");
    await outputs.locator(".tool-call").waitFor();
    await phone.locator("#run-feedback li").waitFor();
    const problems = (await phone.evaluate(LAYOUT_PROBLEMS)) as string[];
    await outputs.locator("button.raw-toggle").click();
    await outputs.locator("pre.json").waitFor();
    problems.push(...((await phone.evaluate(LAYOUT_PROBLEMS)) as string[]).map((p) => `raw: ${p}`));
    await phone.screenshot({ path: `${screensDir(cp.temp.dir)}/dashboard-trace-390.png`, fullPage: true });
    await phone.close();
    assert.deepEqual(problems, []);
  });

  it("the charts count the traces over the chosen range", async () => {
    const charts = page.locator("#trace-charts");
    await charts.locator("#series-totals", { hasText: "2 traces · 1 failed" }).waitFor();
    assert.equal(await charts.locator("svg.chart").count(), 3);
    await charts.locator("button", { hasText: "7 d" }).click();
    await page.locator("#trace-charts[data-range='7 d'] #series-totals", { hasText: "2 traces" }).waitFor();
    assert.deepEqual(errors, []);
  });
});
