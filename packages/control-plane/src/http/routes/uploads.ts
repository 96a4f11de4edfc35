import type { FastifyInstance, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { DeploymentParams } from "../../schemas/query.js";
import { COMMON_ERRORS, ErrorOut } from "../../schemas/responses.js";
import type { UploadService } from "../../services/uploads.js";

const tags = ["deployments"];
const ARCHIVE_TYPES = [
  "application/gzip",
  "application/x-gzip",
  "application/octet-stream",
  "application/x-tar",
];

/** The base URL the client reached us at, for upload URLs it can use (or the configured public URL). */
function baseUrlOf(request: FastifyRequest, publicUrl: string | null): string {
  return publicUrl ?? `${request.protocol}://${request.host}`;
}

/** `POST /v2/deployments/{id}/upload-url` (API key). */
export function uploadUrlRoutes(uploads: UploadService, publicUrl: string | null): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      "/v2/deployments/:deployment_id/upload-url",
      {
        schema: {
          tags,
          summary: "Mint an upload URL for a project archive (PUT it there, then PATCH its object_path)",
          params: DeploymentParams,
          response: { 200: z.object({ upload_url: z.string(), object_path: z.string() }), ...COMMON_ERRORS },
        },
      },
      (request) =>
        uploads.mint(request.tenantId, request.params.deployment_id, baseUrlOf(request, publicUrl)),
    );
  };
}

/**
 * `PUT /v2/uploads/{token}`: the upload URL itself. Its token is the credential (like a signed
 * URL), so it sits outside the API-key scope. The body is streamed to disk, never buffered.
 */
export async function uploadReceiveRoutes(app: FastifyInstance, uploads: UploadService): Promise<void> {
  await app.register(async (scope) => {
    scope.addContentTypeParser(ARCHIVE_TYPES, (_request, payload, done) => done(null, payload));
    const schema = {
      tags,
      summary: "Receive a project archive (the upload URL; its token is the credential)",
      security: [],
      response: {
        200: z.object({}).describe("Stored"),
        404: ErrorOut,
        413: ErrorOut,
      },
    };
    scope.put<{ Params: { token: string } }>("/v2/uploads/:token", { schema }, async (request, reply) => {
      const token = request.params.token;
      if (!/^[A-Za-z0-9_-]{20,100}$/.test(token))
        return reply.code(404).send({ detail: "Upload URL not found or expired." });
      const length = request.headers["content-length"];
      await uploads.receive(token, request.raw, length === undefined ? undefined : Number(length));
      return reply.code(200).send({});
    });
  });
}
