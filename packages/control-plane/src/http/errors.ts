import { ApiError, jsonDepthExceeds, MAX_JSON_DEPTH, storageFault } from "@berth-platform/server-kit";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { type FieldIssue, UnprocessableError } from "../errors.js";
import { wantsPage } from "./routes/dashboard.js";

/** What a 503 for an unavailable database tells the client to wait before sending again. */
const STORAGE_RETRY_AFTER_SECONDS = 2;

/** One entry of a 422 body, shaped like FastAPI's. */
export type ValidationIssue = FieldIssue;

const LOCATION: Record<string, string> = {
  body: "body",
  params: "path",
  querystring: "query",
  headers: "header",
};

interface ZodIssueLike {
  keyword: string;
  instancePath: string;
  message: string;
  params: Record<string, unknown>;
}

const BOUND_TYPES: Record<string, [string, string]> = {
  number: ["greater_than_equal", "less_than_equal"],
  bigint: ["greater_than_equal", "less_than_equal"],
  string: ["string_too_short", "string_too_long"],
  array: ["too_short", "too_long"],
};

/** Maps one zod issue to FastAPI's `{loc, msg, type}` (pydantic's type names where one fits). */
export function toValidationIssue(where: string, issue: ZodIssueLike): ValidationIssue {
  const loc = [
    where,
    ...issue.instancePath
      .split("/")
      .filter((s) => s !== "")
      .map((s) => (/^\d+$/.test(s) ? Number(s) : s)),
  ];
  const p = issue.params;
  if (issue.keyword === "invalid_type" && / received undefined$/.test(issue.message)) {
    return { loc, msg: "Field required", type: "missing" };
  }
  const origin = typeof p.origin === "string" ? p.origin : "";
  let type: string;
  switch (issue.keyword) {
    case "invalid_type":
      type = `${String(p.expected)}_type`;
      break;
    case "invalid_value":
      type = "enum";
      break;
    case "invalid_format":
      type = p.format === "regex" ? "string_pattern_mismatch" : `${String(p.format)}_parsing`;
      break;
    case "too_small":
      type = BOUND_TYPES[origin]?.[0] ?? "too_short";
      break;
    case "too_big":
      type = BOUND_TYPES[origin]?.[1] ?? "too_long";
      break;
    case "invalid_union":
      type = "union_tag_invalid";
      break;
    case "custom":
      type = "value_error";
      break;
    default:
      type = issue.keyword;
  }
  return { loc, msg: issue.message, type };
}

/**
 * The one place errors become HTTP: domain errors keep their status with `{detail: string}`;
 * schema errors and malformed JSON are 422 `{detail: [{loc, msg, type}]}`; oversized bodies 413,
 * unsupported media types 415; a database that is restarting 503 with Retry-After, a full disk
 * 507; anything unexpected is logged and answered with a bare 500.
 */
export function registerErrorHandling(
  app: FastifyInstance,
  options: {
    /** The dashboard's page for an unknown path a browser asked for (absent: JSON for everyone). */
    notFoundPage?: ((request: FastifyRequest, reply: FastifyReply) => FastifyReply) | undefined;
  } = {},
): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof UnprocessableError) return reply.code(422).send({ detail: error.issues });
    // The control plane's domain errors and those of the packages it mounts (tracing).
    if (error instanceof ApiError) {
      const retryAfter = error.retryAfterSeconds;
      if (retryAfter !== undefined) reply.header("retry-after", String(retryAfter));
      return reply.code(error.status).send({ detail: error.message });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const where = LOCATION[error.validationContext ?? "body"] ?? "body";
      const detail = error.validation.map((issue) =>
        toValidationIssue(where, issue as unknown as ZodIssueLike),
      );
      return reply.code(422).send({ detail });
    }
    switch (error.code) {
      // Also what a `__proto__`/`constructor.prototype` key gives (the parser refuses them).
      case "FST_ERR_CTP_INVALID_JSON_BODY":
        return reply
          .code(422)
          .send({ detail: [{ loc: ["body"], msg: "JSON decode error", type: "json_invalid" }] });
      case "FST_ERR_CTP_BODY_TOO_LARGE":
        return reply.code(413).send({ detail: "Request body is too large." });
      case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
        return reply.code(415).send({ detail: "Unsupported content type: send application/json." });
    }
    if (error instanceof SyntaxError || error.message?.includes("prototype property")) {
      return reply
        .code(422)
        .send({ detail: [{ loc: ["body"], msg: "JSON decode error", type: "json_invalid" }] });
    }
    const fault = storageFault(error);
    if (fault === "unavailable") {
      // A PostgreSQL restart or failover: nothing was half-written, the client may send again.
      request.log.warn({ err: error }, "database unavailable");
      return reply
        .code(503)
        .header("retry-after", String(STORAGE_RETRY_AFTER_SECONDS))
        .send({ detail: "The control plane's database is unavailable; retry shortly." });
    }
    if (fault === "full") {
      request.log.error({ err: error }, "storage full");
      return reply.code(507).send({
        detail: "The control plane's storage is full: nothing was written. Free disk space and retry.",
      });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return reply.code(status).send({ detail: error.message });
    request.log.error({ err: error }, "unhandled error");
    return reply.code(500).send({ detail: "Internal server error" });
  });

  app.setNotFoundHandler((request, reply) => {
    // A person who typed a wrong address sees the app's own not-found page; API clients get JSON.
    if (options.notFoundPage && wantsPage(request)) return options.notFoundPage(request, reply.code(404));
    reply
      .code(404)
      .send({ detail: `Not found: ${request.method} ${request.url.split("?")[0]?.slice(0, 200)}` });
  });
}

/** A body nested deeper than any request of this API needs (400: it is not a usable JSON body). */
export function tooDeep(): Error {
  return Object.assign(new Error(`Invalid JSON body: nested deeper than ${MAX_JSON_DEPTH} levels.`), {
    statusCode: 400,
  });
}

/** JSON bodies only; an empty body means "no body" (redeploy and interrupt take none). */
export function registerJsonParsing(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    if (typeof body === "string" && body.trim() === "") return done(null, undefined);
    if (jsonDepthExceeds(body as string)) return done(tooDeep(), undefined);
    parseJson(request, body as string, done);
  });
}
