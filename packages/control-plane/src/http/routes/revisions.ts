import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  DeploymentParams,
  LatestRevisionStatusesQuery,
  RevisionListQuery,
  RevisionParams,
} from "../../schemas/query.js";
import { RevisionCreateRequest } from "../../schemas/requests.js";
import {
  COMMON_ERRORS,
  DeploymentOut,
  ErrorOut,
  LatestRevisionStatusOut,
  pageOf,
  RevisionOut,
} from "../../schemas/responses.js";
import type { RevisionService } from "../../services/revisions.js";
import { deploymentToWire, revisionToWire } from "../wire.js";
import { canonicalBody, decorateVocabulary } from "./aliases-hook.js";

const tags = ["revisions"];
const base = "/v2/deployments/:deployment_id/revisions";

/** `/v2/deployments/{id}/revisions` routes. */
export function revisionRoutes(revisions: RevisionService): FastifyPluginAsyncZod {
  return async (app) => {
    decorateVocabulary(app);
    // A list of hundreds of deployments needs each one's latest status: one read instead of one
    // revisions request per row (the dashboard's list). Other tenants' ids are left out, not 404.
    app.get(
      "/v2/deployments/latest-revision-statuses",
      {
        schema: {
          tags,
          summary: "Latest revision status of up to 100 deployments (Berth extension)",
          querystring: LatestRevisionStatusesQuery,
          response: { 200: z.object({ resources: z.array(LatestRevisionStatusOut) }), ...COMMON_ERRORS },
        },
      },
      async (request) => ({
        resources: await revisions.latestOf(request.tenantId, request.query.deployment_ids),
      }),
    );

    app.get(
      base,
      {
        schema: {
          tags,
          summary: "List a deployment's revisions (newest first)",
          params: DeploymentParams,
          querystring: RevisionListQuery,
          response: { 200: pageOf(RevisionOut), ...COMMON_ERRORS },
        },
      },
      async (request) => {
        const q = request.query;
        const page = await revisions.list(request.tenantId, request.params.deployment_id, {
          statuses: q.status,
          limit: q.limit,
          offset: q.offset,
        });
        const vocabulary = await revisions.vocabulary(request.tenantId, request.params.deployment_id);
        return { resources: page.resources.map((r) => revisionToWire(r, vocabulary)), offset: page.offset };
      },
    );

    app.post(
      base,
      {
        schema: {
          tags,
          summary: "Create a revision (the latest one's inputs, changed by the body)",
          params: DeploymentParams,
          body: RevisionCreateRequest.nullish(),
          response: { 201: RevisionOut, 400: ErrorOut, 409: ErrorOut, ...COMMON_ERRORS },
        },
        preValidation: canonicalBody,
      },
      async (request, reply) => {
        const created = await revisions.create(
          request.tenantId,
          request.params.deployment_id,
          request.body ?? {},
        );
        const vocabulary = await revisions.vocabulary(request.tenantId, request.params.deployment_id);
        return reply.code(201).send(revisionToWire(created, vocabulary));
      },
    );

    app.get(
      `${base}/:revision_id`,
      {
        schema: {
          tags,
          summary: "Get a revision",
          params: RevisionParams,
          response: { 200: RevisionOut, ...COMMON_ERRORS },
        },
      },
      async (request) => {
        const { tenantId, params } = request;
        const revision = await revisions.get(tenantId, params.deployment_id, params.revision_id);
        return revisionToWire(revision, await revisions.vocabulary(tenantId, params.deployment_id));
      },
    );

    app.post(
      `${base}/:revision_id/redeploy`,
      {
        schema: {
          tags,
          summary: "Redeploy a revision's inputs as a new revision",
          params: RevisionParams,
          response: { 200: DeploymentOut, 409: ErrorOut, ...COMMON_ERRORS },
        },
      },
      async (request) =>
        deploymentToWire(
          await revisions.redeploy(
            request.tenantId,
            request.params.deployment_id,
            request.params.revision_id,
          ),
        ),
    );

    app.post(
      `${base}/:revision_id/interrupt`,
      {
        schema: {
          tags,
          summary: "Interrupt a revision that is not settled",
          params: RevisionParams,
          response: { 200: RevisionOut, 409: ErrorOut, ...COMMON_ERRORS },
        },
      },
      async (request) => {
        const { tenantId, params } = request;
        const revision = await revisions.interrupt(tenantId, params.deployment_id, params.revision_id);
        return revisionToWire(revision, await revisions.vocabulary(tenantId, params.deployment_id));
      },
    );
  };
}
