import type { IncomingHttpHeaders } from "node:http";
import type { DeploymentDirectory, TracingAuth, TracingCaller } from "@berth-platform/tracing";
import { UnauthorizedError } from "../errors.js";
import type { DeploymentStore } from "../storage/types.js";
import type { AuthService } from "./auth.js";
import { IngestKeys } from "./ingest-keys.js";

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The control plane's side of the tracing package's auth port: a deployment's ingest key (it
 * never picks another workspace), else a workspace API key with the usual tenant choice.
 */
export class ControlPlaneTracingAuth implements TracingAuth {
  constructor(
    private readonly auth: AuthService,
    private readonly keys: IngestKeys,
  ) {}

  async callerOf(headers: IncomingHttpHeaders): Promise<TracingCaller> {
    const apiKey = header(headers, "x-api-key");
    const authorization = header(headers, "authorization");
    const key = apiKey ?? authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
    if (key && IngestKeys.looksLikeIngestKey(key)) {
      const owner = this.keys.ownerOf(key);
      if (!owner) throw new UnauthorizedError("Invalid trace ingest key.");
      return { sender: { tenantId: owner.tenantId, deploymentId: owner.deploymentId }, kind: "ingest" };
    }
    const { tenantId } = await this.auth.authenticatePrincipal({
      apiKey,
      authorization,
      tenantId: header(headers, "x-tenant-id"),
    });
    return { sender: { tenantId, deploymentId: null }, kind: "api" };
  }
}

/** The deployments ingest keys belong to, for the tracing package (their names name projects). */
export class ControlPlaneDeployments implements DeploymentDirectory {
  constructor(private readonly deployments: DeploymentStore) {}

  async nameOf(tenantId: string, deploymentId: string): Promise<string | undefined> {
    return (await this.deployments.get(tenantId, deploymentId))?.name;
  }
}
