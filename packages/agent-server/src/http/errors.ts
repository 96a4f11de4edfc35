import { jsonDepthExceeds, MAX_JSON_DEPTH, storageFault } from "@berth-platform/server-kit";
import type { FastifyError, FastifyInstance } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { DomainError } from "../errors.js";

const LOCATION: Record<string, string> = {
  body: "body",
  params: "path",
  querystring: "query",
  headers: "header",
};

/**
 * The one place errors become HTTP: domain errors keep their status, schema errors are 422, bad
 * JSON is 422, oversized bodies 413; anything unexpected is logged and answered with a bare 500.
 * Every body is `{detail: string}`.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof DomainError) {
      return reply.code(error.status).send({ detail: error.message });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const where = LOCATION[error.validationContext ?? "body"] ?? "body";
      const detail = error.validation
        .map((issue) => {
          const path = issue.instancePath.split("/").filter(Boolean).join(".");
          return `${where}${path ? `.${path}` : ""}: ${issue.message}`;
        })
        .join("; ");
      return reply.code(422).send({ detail: `Invalid request: ${detail}` });
    }
    switch (error.code) {
      case "FST_ERR_CTP_INVALID_JSON_BODY":
        return reply.code(422).send({ detail: `Invalid JSON body: ${error.message}` });
      case "FST_ERR_CTP_BODY_TOO_LARGE":
        return reply.code(413).send({ detail: "Request body is too large" });
      case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
        return reply
          .code(415)
          .send({ detail: `Unsupported content type: ${request.headers["content-type"] ?? ""}` });
    }
    const fault = storageFault(error);
    if (fault === "unavailable") {
      // A PostgreSQL restart or failover: the client may retry; nothing was half-written.
      request.log.warn({ err: error }, "database unavailable");
      return reply
        .code(503)
        .header("retry-after", "2")
        .send({ detail: "The database is unavailable; retry shortly" });
    }
    if (fault === "full") {
      request.log.error({ err: error }, "storage full");
      return reply
        .code(507)
        .send({ detail: "The server's storage is full: nothing was written; free disk space" });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return reply.code(status).send({ detail: error.message });
    request.log.error({ err: error }, "unhandled error");
    return reply.code(500).send({ detail: "Internal server error" });
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ detail: `Not found: ${request.method} ${request.url.split("?")[0]}` });
  });
}

/**
 * JSON bodies: empty means "no body" (POST /threads with nothing is valid), prototype keys are
 * refused, and text/plain is read as JSON (browsers' sendBeacon, as the official server allows).
 */
export function registerJsonParsing(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser(["application/json", "text/plain"]);
  app.addContentTypeParser(
    ["application/json", "text/plain"],
    { parseAs: "string" },
    (request, body, done) => {
      if (typeof body === "string" && body.trim() === "") return done(null, undefined);
      if (jsonDepthExceeds(body as string)) {
        return done(
          Object.assign(new Error(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`), { statusCode: 422 }),
          undefined,
        );
      }
      parseJson(request, body as string, done);
    },
  );
}
