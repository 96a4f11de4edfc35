import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { jsonDepthExceeds, MAX_JSON_DEPTH } from "@berth-platform/server-kit";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { type RawRun, type RunWrite, runWriteOf } from "../../domain/tracing.js";
import { BadRequestError, ConflictError, PayloadTooLargeError, TracingError } from "../../errors.js";
import type { FeedbackInput } from "../../services/feedback.js";
import { boundaryOf, parseMultipart } from "../multipart.js";
import type { LangSmithDeps } from "../plugin.js";

const gunzipAsync = promisify(gunzip);

const RUN_FIELDS = new Set(["inputs", "outputs", "events", "extra", "error", "serialized"]);

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The body, inflated when the client compressed it (bounded: a small bomb cannot grow past the limit). */
async function decoded(request: FastifyRequest, body: Buffer, limit: number): Promise<Buffer> {
  const encoding = (header(request, "content-encoding") ?? "identity").trim().toLowerCase();
  if (encoding === "identity" || encoding === "") return body;
  if (encoding !== "gzip") {
    throw Object.assign(new Error(`Unsupported Content-Encoding: ${encoding.slice(0, 40)} (gzip only).`), {
      statusCode: 415,
    });
  }
  try {
    return await gunzipAsync(body, { maxOutputLength: limit });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
      throw new PayloadTooLargeError(`The decompressed body is larger than ${limit} bytes.`);
    }
    throw new BadRequestError("The body is not valid gzip.");
  }
}

/** A body nested deeper than any request of this API needs. */
function tooDeep(): BadRequestError {
  return new BadRequestError(`Invalid JSON body: nested deeper than ${MAX_JSON_DEPTH} levels.`);
}

function parseJson(text: string, where: string, checkDepth = true): unknown {
  // JSON.parse itself does not recurse; the check guards what is serialized again (batch bodies).
  if (checkDepth && jsonDepthExceeds(text)) throw tooDeep();
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequestError(`${where} is not valid JSON.`);
  }
}

/** Body parsers of these routes only: JSON and multipart, gzip or not, buffered within the limit. */
/** A JSON body parser (gzip or not) within `limit` bytes. */
export function jsonBody(limit: number) {
  return async (request: FastifyRequest, body: Buffer | string) => {
    const text = (await decoded(request, body as Buffer, limit)).toString("utf8");
    return text.trim() === "" ? undefined : parseJson(text, "The body");
  };
}

export function registerParsers(app: FastifyInstance, limit: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer", bodyLimit: limit }, jsonBody(limit));
  app.addContentTypeParser(
    "multipart/form-data",
    { parseAs: "buffer", bodyLimit: limit },
    async (request: FastifyRequest, body: Buffer | string) => ({
      multipart: await decoded(request, body as Buffer, limit),
    }),
  );
}

interface Operation {
  op: "post" | "patch";
  raw: RawRun;
  bytes: number;
  /** Field parts' JSON text, stored as sent. */
  texts?: Record<string, string>;
}

/**
 * The run operations of a multipart body (`post.<id>`, `post.<id>.<field>`, `patch.…`), and its
 * feedback parts (`feedback.<id>`: the SDK batches evaluators' feedback with runs); attachments
 * are not kept.
 */
function operationsOfMultipart(
  body: Buffer,
  boundary: string,
): { ops: Operation[]; feedback: FeedbackInput[] } {
  const ops = new Map<string, Operation>();
  const feedback: FeedbackInput[] = [];
  for (const part of parseMultipart(body, boundary)) {
    const [kind = "", id = "", field, ...more] = part.name.split(".");
    if (kind === "attachment") continue;
    if (kind === "feedback" && field === undefined) {
      const value = parseJson(part.data.toString("utf8"), `Part "${part.name.slice(0, 100)}"`, false);
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        throw new BadRequestError(`Part "${part.name.slice(0, 100)}" must be a JSON object.`);
      }
      feedback.push({ ...(value as FeedbackInput), id });
      continue;
    }
    if ((kind !== "post" && kind !== "patch") || id === "" || more.length > 0) {
      throw new BadRequestError(`Unknown multipart part "${part.name.slice(0, 100)}".`);
    }
    const key = `${kind}.${id}`;
    let entry = ops.get(key);
    if (!entry) {
      entry = { op: kind, raw: {}, bytes: 0 };
      ops.set(key, entry);
    }
    entry.bytes += part.data.length;
    const text = part.data.toString("utf8");
    const value = parseJson(text, `Part "${part.name.slice(0, 100)}"`, false);
    if (field === undefined) {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        throw new BadRequestError(`Part "${part.name.slice(0, 100)}" must be a JSON object.`);
      }
      entry.raw = { ...(value as RawRun), ...entry.raw };
      // The part's name is the run's id (the payload may repeat it).
      entry.raw.id = id;
    } else if (RUN_FIELDS.has(field)) {
      entry.raw[field] = value;
      entry.texts ??= {};
      entry.texts[field] = text;
    }
  }
  return { ops: [...ops.values()], feedback };
}

function operationsOfBatch(body: unknown): Operation[] {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new BadRequestError("The batch body must be an object with `post` and/or `patch` lists.");
  }
  const ops: Operation[] = [];
  for (const op of ["post", "patch"] as const) {
    const list = (body as Record<string, unknown>)[op];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) throw new BadRequestError(`\`${op}\` must be a list of runs.`);
    for (const raw of list) ops.push({ op, raw: raw as RawRun, bytes: JSON.stringify(raw ?? null).length });
  }
  return ops;
}

/**
 * The ingest endpoints of the LangSmith API (`POST /runs/multipart`, `POST /runs/batch`, `POST
 * /runs`, `PATCH /runs/{id}`), as the official SDK calls them under LANGSMITH_ENDPOINT (requests
 * are validated, then written in batches shared by concurrent requests and answered once committed).
 */
export function ingestRoutes(deps: LangSmithDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const enqueue = async (request: FastifyRequest, ops: Operation[]) => {
      const { sender } = request.langsmithCaller;
      const writes: RunWrite[] = [];
      let bytes = 0;
      for (const { op, raw, bytes: size, texts } of ops) {
        try {
          const projectId = await deps.tracing.projectFor(sender, raw ?? {}, op);
          const write = runWriteOf(raw, op, sender.tenantId, projectId, size, texts);
          write.writer_deployment_id = sender.deploymentId;
          writes.push(write);
        } catch (error) {
          // A value JSON could parse but not serialize again (too deep for the stack) is still bad input.
          if (error instanceof TracingError) throw error;
          throw new BadRequestError("A run could not be read.");
        }
        bytes += size;
      }
      // Answered once written: a 202 means the runs are kept (a failure is a 503/507 the SDK sees).
      const { refused } = await deps.queue.offer(writes, bytes);
      if (refused.length > 0) {
        const ids = [...new Set(refused.map((write) => write.id))];
        throw new ConflictError(
          `Run ${ids.slice(0, 5).join(", ")}${ids.length > 5 ? ` and ${ids.length - 5} more` : ""} ` +
            "already exists and was not written by this deployment: it was not changed.",
        );
      }
      return { accepted: writes.length };
    };

    app.post("/runs/multipart", { schema: { hide: true } }, async (request, reply) => {
      const body = request.body as { multipart?: Buffer } | undefined;
      const boundary = boundaryOf(header(request, "content-type"));
      if (!body?.multipart || !boundary) {
        throw new BadRequestError("Send multipart/form-data with a boundary.");
      }
      const { ops, feedback } = operationsOfMultipart(body.multipart, boundary);
      const accepted = await enqueue(request, ops);
      for (const item of feedback)
        await deps.tracing.feedback.create(request.langsmithCaller.sender.tenantId, item);
      return reply.code(202).send(accepted);
    });

    app.post("/runs/batch", { schema: { hide: true } }, async (request, reply) =>
      reply.code(202).send(await enqueue(request, operationsOfBatch(request.body))),
    );

    app.post("/runs", { schema: { hide: true } }, async (request, reply) =>
      reply
        .code(202)
        .send(
          await enqueue(request, [
            { op: "post", raw: request.body as RawRun, bytes: byteSize(request.body) },
          ]),
        ),
    );

    app.patch(
      "/runs/:run_id",
      { schema: { hide: true, params: z.object({ run_id: z.uuid() }) } },
      async (request, reply) => {
        const body = request.body;
        if (typeof body !== "object" || body === null || Array.isArray(body)) {
          throw new BadRequestError("The body must be a JSON object.");
        }
        const raw = { ...(body as RawRun), id: request.params.run_id };
        return reply.code(202).send(await enqueue(request, [{ op: "patch", raw, bytes: byteSize(body) }]));
      },
    );
  };
}

function byteSize(body: unknown): number {
  return body === undefined ? 0 : JSON.stringify(body).length;
}
