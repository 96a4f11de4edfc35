// The dashboard's pure parts, in Node: routing, folding a run's stream into the chat, error
// messages claimed by form fields, Prometheus text, secrets text. The pages themselves are driven
// in Chromium by test/e2e/dashboard.test.ts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError, errorFromBody } from "../src/api/errors.js";
import { parsePrometheus, sum } from "../src/api/prometheus.js";
import type { WireMessage } from "../src/components/messages.js";
import { textOf } from "../src/components/messages.js";
import { fieldsOf, textOf as fieldText, parseText } from "../src/components/typed-form.js";
import { duration, isSettled, shortId, statusTone } from "../src/format.js";
import { applyMessage, interruptsOf, resumeValue } from "../src/pages/chat-stream.js";
import { humanRequestOf, humanResume } from "../src/pages/human-interrupt.js";
import { declaredSpec } from "../src/pages/resource-spec-view.js";
import { parseSecrets } from "../src/pages/secrets-text.js";
import { firstMessageOf, graphOf } from "../src/pages/thread-summary.js";
import { matchPath } from "../src/router.js";

describe("matchPath", () => {
  it("matches literal segments, named parameters and an optional last one", () => {
    assert.deepEqual(matchPath("/", "/"), {});
    assert.deepEqual(matchPath("/deployments/:id/:tab?", "/deployments/abc"), { id: "abc" });
    assert.deepEqual(matchPath("/deployments/:id/:tab?", "/deployments/abc/logs"), {
      id: "abc",
      tab: "logs",
    });
    assert.deepEqual(matchPath("/o/:tenant/host/deployments/:id", "/o/t1/host/deployments/d1"), {
      tenant: "t1",
      id: "d1",
    });
    assert.deepEqual(matchPath("/deployments/:id", "/deployments/a%20b"), { id: "a b" });
  });

  it("refuses other paths: longer, shorter, another literal", () => {
    assert.equal(matchPath("/", "/deployments"), null);
    assert.equal(matchPath("/deployments/:id/:tab?", "/deployments/a/b/c"), null);
    assert.equal(matchPath("/deployments/:id", "/deployments"), null);
    assert.equal(matchPath("/o/:tenant/host/deployments/:id", "/o/t/guest/deployments/d"), null);
  });
});

describe("the chat's stream folding", () => {
  it("concatenates every message of one id, whatever its type says (JS: ai, Python: AIMessageChunk)", () => {
    let list: WireMessage[] = [{ id: "h1", type: "human", content: "hi" }];
    // The JS server's chunks of a streamed model say "ai".
    list = applyMessage(list, { id: "a1", type: "ai", content: "Hel" });
    list = applyMessage(list, { id: "a1", type: "ai", content: "lo" });
    assert.equal(list.length, 2);
    assert.equal(textOf(list[1]?.content), "Hello");
    list = applyMessage(list, { id: "t1", type: "tool", content: "12°C", name: "get_weather" });
    list = applyMessage(list, { id: "a1", type: "AIMessageChunk", content: [{ type: "text", text: "!" }] });
    assert.deepEqual(
      list.map((m) => [m.id, m.type, textOf(m.content)]),
      [
        ["h1", "human", "hi"],
        ["a1", "ai", "Hello!"],
        ["t1", "tool", "12°C"],
      ],
    );
  });

  it("assembles a streamed tool call from its chunks (name first, arguments in pieces)", () => {
    let list: WireMessage[] = [];
    list = applyMessage(list, {
      id: "a",
      type: "ai",
      content: "",
      tool_call_chunks: [{ index: 0, id: "c1", name: "get_weather", args: '{"ci' }],
      tool_calls: [{ id: "c1", name: "get_weather", args: {} }],
    });
    list = applyMessage(list, {
      id: "a",
      type: "ai",
      content: "",
      tool_call_chunks: [{ index: 0, args: 'ty":"Lisbon"}' }],
    });
    assert.deepEqual(list[0]?.tool_calls, [{ id: "c1", name: "get_weather", args: { city: "Lisbon" } }]);
  });

  it("keeps tool calls named in a chunk, and ignores nameless partial ones", () => {
    let list: WireMessage[] = [];
    list = applyMessage(list, {
      id: "a",
      type: "AIMessageChunk",
      content: "",
      tool_calls: [{ id: "c1", name: "calc", args: {} }],
    });
    list = applyMessage(list, {
      id: "a",
      type: "AIMessageChunk",
      content: "",
      tool_calls: [{ id: "c1", name: "", args: {} }],
    });
    assert.deepEqual(
      list[0]?.tool_calls?.map((c) => c.name),
      ["calc"],
    );
  });

  it("finds interrupts in an updates event and reads resume values as JSON or text", () => {
    assert.deepEqual(interruptsOf({ __interrupt__: [{ value: { question: "ok?" }, id: "i1" }] }), [
      { value: { question: "ok?" }, id: "i1" },
    ]);
    assert.deepEqual(interruptsOf({ draft: { messages: [] } }), []);
    assert.deepEqual(interruptsOf(null), []);
    assert.equal(resumeValue("approve"), "approve");
    assert.deepEqual(resumeValue('{"edit": "x"}'), { edit: "x" });
    assert.equal(resumeValue("42"), 42);
  });
});

describe("API errors on forms", () => {
  it("a 422's issues go to the field their loc names; the summary lists them", () => {
    const error = errorFromBody(422, {
      detail: [{ loc: ["body", "source_config", "repo_url"], msg: "Field required", type: "missing" }],
    });
    assert.ok(error instanceof ApiError);
    assert.deepEqual(error.fieldMessages("source_config.repo_url"), ["Field required"]);
    assert.deepEqual(error.fieldMessages("name"), []);
    assert.equal(error.message, "source_config.repo_url: Field required");
  });

  it("a 400 sentence goes to the field it starts with, by path or last segment", () => {
    const name = errorFromBody(400, { detail: "name must start with a lowercase letter" });
    assert.deepEqual(name.fieldMessages("name"), ["name must start with a lowercase letter"]);
    const repo = errorFromBody(400, { detail: "repo_url refuses loopback addresses" });
    assert.equal(repo.fieldMessages("source_config.repo_url").length, 1);
    assert.equal(repo.fieldMessages("name").length, 0);
    assert.equal(errorFromBody(409, { detail: "name is taken" }).fieldMessages("name").length, 0);
    assert.equal(errorFromBody(502, undefined).message, "Request failed (502)");
  });
});

describe("Prometheus text", () => {
  it("reads samples with labels (escapes included) and sums them by name and label", () => {
    const samples = parsePrometheus(
      [
        "# HELP lg_api_runs_finished_total Runs",
        "# TYPE lg_api_runs_finished_total counter",
        'lg_api_runs_finished_total{status="success"} 3',
        'lg_api_runs_finished_total{status="error"} 1',
        'odd{path="a\\"b"} 2',
        "lg_api_num_pending_runs 0",
        "",
      ].join("\n"),
    );
    assert.equal(sum(samples, "lg_api_runs_finished_total"), 4);
    assert.equal(sum(samples, "lg_api_runs_finished_total", { status: "error" }), 1);
    assert.equal(samples.find((s) => s.name === "odd")?.labels.path, 'a"b');
    assert.equal(sum(samples, "lg_api_num_pending_runs"), 0);
  });
});

describe("formatting and secrets text", () => {
  it("colours statuses, settles the final ones, shortens ids from their end", () => {
    assert.equal(statusTone("DEPLOYED"), "ok");
    assert.equal(statusTone("BUILD_FAILED"), "fail");
    assert.equal(statusTone("BUILDING"), "busy");
    assert.equal(statusTone("INTERRUPTED"), "idle");
    assert.equal(isSettled("DEPLOY_FAILED"), true);
    assert.equal(isSettled("QUEUED"), false);
    assert.equal(shortId("01a211e8-0a1c-708d-82c1-db058e15b56b"), "…8e15b56b");
    assert.equal(shortId("agent"), "agent");
    assert.equal(duration(1500), "1.5 s");
    assert.equal(duration(61_000), "1 min 1 s");
  });

  it("reads NAME=value lines: values keep their '=' and spaces, comments and blanks are skipped", () => {
    assert.deepEqual(parseSecrets("A=1\n\n# note\nB = x=y \nC"), [
      { name: "A", value: "1" },
      { name: "B", value: " x=y" },
      { name: "C", value: "" },
    ]);
  });
});

describe("the standard human interrupt", () => {
  const request = {
    action_request: { action: "send_email", args: { to: "a@example.com" } },
    config: { allow_accept: true, allow_edit: false, allow_respond: true, allow_ignore: false },
    description: "Send it?",
  };

  it("is recognised alone or as a list of one, and answered the same way", () => {
    assert.deepEqual(humanRequestOf([request]), { request, listed: true });
    assert.deepEqual(humanRequestOf(request), { request, listed: false });
    assert.deepEqual(humanResume(true, { type: "accept", args: null }), [{ type: "accept", args: null }]);
    assert.deepEqual(humanResume(false, { type: "response", args: "no" }), { type: "response", args: "no" });
  });

  it("anything else is not one (the chat offers the JSON resume form)", () => {
    assert.equal(humanRequestOf({ question: "Approve this draft?" }), null);
    assert.equal(humanRequestOf([request, request]), null);
    assert.equal(humanRequestOf({ ...request, config: { allow_accept: "yes" } }), null);
    assert.equal(humanRequestOf({ ...request, action_request: { action: "x" } }), null);
    assert.equal(humanRequestOf(null), null);
  });
});

describe("a thread's summary in the list", () => {
  it("is its first message on one line, cut to length, and the graph its runs used", () => {
    const values = {
      messages: [
        { type: "human", content: "What is\n the weather   in Lisbon?" },
        { type: "ai", content: "Sunny" },
      ],
    };
    assert.equal(firstMessageOf(values), "What is the weather in Lisbon?");
    assert.equal(firstMessageOf(values, 10), "What is t…");
    assert.equal(
      firstMessageOf({ messages: [{ type: "human", content: [{ type: "text", text: "hi" }] }] }),
      "hi",
    );
    assert.equal(firstMessageOf({}), null);
    assert.equal(firstMessageOf(null), null);
    assert.equal(graphOf({ graph_id: "agent", assistant_id: "x" }), "agent");
    assert.equal(graphOf({}), null);
  });
});

describe("typed forms", () => {
  it("types fields by the schema where it says, else by the value's own shape", () => {
    const schema = {
      properties: {
        note: { type: "string", description: "why" },
        copies: { type: "integer" },
        approved: { type: ["boolean", "null"] },
        messages: { type: "array" },
        either: { anyOf: [{ type: "string" }, { type: "number" }] },
      },
    };
    const fields = fieldsOf(schema, { copies: "three", extra: 2, flag: true });
    assert.deepEqual(
      fields.map((f) => [f.key, f.kind]),
      [
        ["note", "text"],
        ["copies", "json"], // the value does not fit the schema: still editable, as JSON
        ["approved", "boolean"],
        ["messages", "json"],
        ["either", "json"],
        ["extra", "number"],
        ["flag", "boolean"],
      ],
    );
    assert.equal(fields[0]?.description, "why");
  });

  it("reads each kind of input back as its typed value, or says what it must be", () => {
    assert.deepEqual(parseText({ key: "n", kind: "number" }, "3"), { value: 3 });
    assert.deepEqual(parseText({ key: "n", kind: "number" }, ""), { error: "a number" });
    assert.deepEqual(parseText({ key: "b", kind: "boolean" }, "true"), { value: true });
    assert.deepEqual(parseText({ key: "j", kind: "json" }, '{"a":[1]}'), { value: { a: [1] } });
    assert.deepEqual(parseText({ key: "j", kind: "json" }, "{"), { error: "valid JSON" });
    assert.deepEqual(parseText({ key: "t", kind: "text" }, " x "), { value: " x " });
    assert.equal(fieldText({ key: "j", kind: "json" }, [1]), "[\n  1\n]");
    assert.equal(fieldText({ key: "b", kind: "boolean" }, undefined), "false");
  });

  it("keeps an interrupt's response schema from the stream", () => {
    const schema = { type: "object", properties: { ok: { type: "boolean" } } };
    assert.deepEqual(
      interruptsOf({ __interrupt__: [{ value: { q: 1 }, id: "i1", response_schema: schema }] }),
      [{ value: { q: 1 }, id: "i1", responseSchema: schema }],
    );
    assert.deepEqual(interruptsOf({ __interrupt__: [{ value: "plain" }] }), [{ value: "plain" }]);
  });
});

describe("declaredSpec", () => {
  it("leaves out the fields the API answers null (their defaults apply), keeps what was set", () => {
    assert.deepEqual(declaredSpec({ cpu: 1, cpu_limit: null, memory_mb: 2048, queue_cpu: 0.5, labels: {} }), {
      cpu: 1,
      memory_mb: 2048,
      queue_cpu: 0.5,
      labels: {},
    });
    assert.equal(declaredSpec(null), null);
  });
});
