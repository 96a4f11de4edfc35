// The agent server's trace sender (issue 30 item 4): traces ending together share one POST to
// `<endpoint>/runs/multipart` with the SDK's headers; a refused POST is retried on 5xx/429 and
// dropped otherwise; drain sends what waits in the batch window.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import { MultipartIngestSender, multipartPart } from "../src/tracing/sender.js";

interface Received {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

describe("MultipartIngestSender", () => {
  let server: http.Server;
  let endpoint: string;
  const received: Received[] = [];
  /** Statuses to answer, in order; 202 once they are used up. */
  let answers: number[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        received.push({ url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString() });
        res.writeHead(answers.shift() ?? 202, { "content-type": "application/json" });
        res.end("{}");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const sender = () =>
    new MultipartIngestSender(
      {
        endpoint,
        apiKey: "the-key",
        workspaceId: "ws-1",
        project: "p",
        envMetadata: {},
        releaseShas: {},
      },
      pino({ level: "silent" }),
    );

  it("batches traces ending together into one POST with the SDK's headers, closed once", async () => {
    received.length = 0;
    const out = sender();
    out.send(multipartPart("post.a", '{"id":"a"}'));
    out.send(multipartPart("post.b", '{"id":"b"}'));
    await out.drain(5_000);
    assert.equal(received.length, 1);
    const [post] = received;
    assert.equal(post?.url, "/api/v1/runs/multipart");
    assert.equal(post?.headers["x-api-key"], "the-key");
    assert.equal(post?.headers["x-tenant-id"], "ws-1");
    const boundary = /boundary=(.+)$/.exec(String(post?.headers["content-type"]))?.[1];
    assert.ok(boundary);
    assert.match(
      post?.body ?? "",
      /name="post\.a"[\s\S]*\{"id":"a"\}[\s\S]*name="post\.b"[\s\S]*\{"id":"b"\}/,
    );
    assert.ok(post?.body.endsWith(`--${boundary}--\r\n`));
    assert.equal(post?.body.split(`--${boundary}--`).length, 2);
  });

  it("sends on its own after the batch window", async () => {
    received.length = 0;
    const out = sender();
    out.send(multipartPart("post.c", '{"id":"c"}'));
    const started = Date.now();
    while (received.length === 0 && Date.now() - started < 5_000) await new Promise((r) => setTimeout(r, 10));
    assert.equal(received.length, 1);
    await out.drain(1_000);
  });

  it("retries 503 and 429, then delivers", async () => {
    received.length = 0;
    answers = [503, 429];
    const out = sender();
    out.send(multipartPart("post.d", '{"id":"d"}'));
    await out.drain(10_000);
    assert.equal(received.length, 3);
    assert.ok(received.every((r) => r.body.includes('{"id":"d"}')));
  });

  it("drops a trace the ingest refuses (400) without retrying", async () => {
    received.length = 0;
    answers = [400];
    const out = sender();
    out.send(multipartPart("post.e", '{"id":"e"}'));
    await out.drain(5_000);
    assert.equal(received.length, 1);
  });
});
