/**
 * A small typed client for the control plane's /v2 API: only what the CLI uses, with the server's
 * `detail` carried into every error so a user sees why a request was refused.
 */

/** A secret as the API takes it. */
export interface SecretInput {
  name: string;
  value: string;
}

/** The parts of a Deployment the CLI reads. */
export interface DeploymentRecord {
  id: string;
  tenant_id: string;
  name: string;
  source: string;
  status: string;
  latest_revision_id: string | null;
  active_revision_id: string | null;
  source_config: { custom_url?: string | null } & Record<string, unknown>;
}

/** The parts of a Revision the CLI reads. */
export interface RevisionRecord {
  id: string;
  status: string;
  created_at: string;
  updated_at: string;
  source_revision_config: Record<string, unknown>;
}

/** One log line. `id` is the cursor of the line (pass it as `offset` to read what follows). */
export interface LogEntry {
  id: string;
  timestamp: number;
  level: string;
  message: string;
}

/** A page of log lines; `next_offset` is null when there is nothing more right now. */
export interface LogPage {
  logs: LogEntry[];
  next_offset: string | null;
}

/** Where to PUT a source archive, and the path to name it by afterwards. */
export interface UploadSlot {
  upload_url: string;
  object_path: string;
}

/** `source_revision_config` of an internal_source revision. */
export interface SourceRevisionInput {
  source_tarball_path?: string;
  graph_config_path?: string;
}

/** A refused request (HTTP status and the server's explanation) or an unreachable server (status 0). */
export class ControlPlaneError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly detail: string,
  ) {
    super(message);
    this.name = "ControlPlaneError";
  }
}

/** Connection errors that mean nothing listens at the URL. */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ECONNRESET",
]);

/** Requests that take longer than this are abandoned (uploads get longer). */
const REQUEST_TIMEOUT_MS = 30_000;
const UPLOAD_TIMEOUT_MS = 10 * 60_000;

/** Client of one control plane with one API key (sent as X-Api-Key). */
export class ControlPlaneClient {
  readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly apiKey: string,
    /** The workspace to act in (X-Tenant-Id), for keys that reach several. */
    private readonly tenantId?: string | undefined,
    /** Where the URL came from (--url, a profile, the default), for error messages. */
    private readonly urlSource?: string,
    /** Where the key came from (--api-key, a profile), for error messages. */
    private readonly keySource?: string,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
  }

  /** Any JSON request of the API (for commands that need no typed helper). */
  request<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.#json(method, path, body);
  }

  /** The deployment with exactly this name, or undefined. */
  async findDeploymentByName(name: string): Promise<DeploymentRecord | undefined> {
    const page = await this.#json<{ resources: DeploymentRecord[] }>(
      "GET",
      `/v2/deployments?${new URLSearchParams({ name, limit: "100" })}`,
    );
    return page.resources.find((d) => d.name === name);
  }

  /** `POST /v2/deployments` for an `internal_source` deployment (its source is uploaded later). */
  createSourceDeployment(name: string, secrets: SecretInput[]): Promise<DeploymentRecord> {
    return this.#json("POST", "/v2/deployments", {
      name,
      source: "internal_source",
      source_config: {},
      source_revision_config: {},
      secrets,
    });
  }

  /** `GET /v2/deployments/{id}`. */
  getDeployment(id: string): Promise<DeploymentRecord> {
    return this.#json("GET", `/v2/deployments/${encodeURIComponent(id)}`);
  }

  /** `POST /v2/deployments/{id}/upload-url`: a one-use URL for a source archive. */
  requestUploadUrl(id: string): Promise<UploadSlot> {
    return this.#json("POST", `/v2/deployments/${encodeURIComponent(id)}/upload-url`);
  }

  /** PUTs a .tar.gz to an upload URL (the URL is its own credential: no API key is sent). */
  async uploadArchive(uploadUrl: string, archive: Buffer): Promise<void> {
    const response = await this.#fetch("PUT", uploadUrl, {
      headers: { "Content-Type": "application/gzip" },
      body: archive,
      timeoutMs: UPLOAD_TIMEOUT_MS,
    });
    if (!response.ok) throw await refusal("PUT", "the upload URL", response, "");
    await response.arrayBuffer();
  }

  /**
   * `POST /v2/deployments/{id}/revisions`: a new revision from an uploaded archive. Omitted secrets
   * carry over from the previous revision.
   */
  createRevision(
    id: string,
    body: { source_revision_config: SourceRevisionInput; secrets?: SecretInput[] },
  ): Promise<RevisionRecord> {
    return this.#json("POST", `/v2/deployments/${encodeURIComponent(id)}/revisions`, body);
  }

  /** `GET /v2/deployments/{id}/revisions/{revision_id}`. */
  getRevision(id: string, revisionId: string): Promise<RevisionRecord> {
    return this.#json(
      "GET",
      `/v2/deployments/${encodeURIComponent(id)}/revisions/${encodeURIComponent(revisionId)}`,
    );
  }

  /** A page of a revision's build or deploy log, after the cursor `offset` when given. */
  revisionLogs(
    id: string,
    revisionId: string,
    query: { type: "build" | "deploy"; order?: "asc" | "desc"; limit?: number; offset?: string },
  ): Promise<LogPage> {
    const params = new URLSearchParams({
      type: query.type,
      order: query.order ?? "asc",
      limit: String(query.limit ?? 200),
    });
    if (query.offset !== undefined) params.set("offset", query.offset);
    return this.#json(
      "GET",
      `/v2/deployments/${encodeURIComponent(id)}/revisions/${encodeURIComponent(revisionId)}/logs?${params}`,
    );
  }

  async #json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.#fetch(method, `${this.baseUrl}${path}`, {
      headers: {
        "X-Api-Key": this.apiKey,
        ...(this.tenantId ? { "X-Tenant-Id": this.tenantId } : {}),
        Accept: "application/json",
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
    const where = path.split("?")[0] ?? path;
    if (!response.ok) throw await refusal(method, `${this.baseUrl}${where}`, response, this.#keyHint());
    const text = await response.text();
    if (response.status === 204) return undefined as T;
    try {
      return (text ? JSON.parse(text) : {}) as T;
    } catch {
      throw new ControlPlaneError(
        `${method} ${where} answered with something that is not JSON: ${text.slice(0, 200)}`,
        response.status,
        text,
      );
    }
  }

  /** What a 401/403 means here: which control plane refused the key, and where its URL came from. */
  #keyHint(): string {
    const from = this.urlSource ? ` (URL from ${this.urlSource})` : "";
    const key = this.keySource ? ` (from ${this.keySource})` : "";
    return ` The control plane at ${this.baseUrl}${from} did not accept this API key${key}: pass a key it issued with --api-key or BERTH_API_KEY (its \`berth up\` printed the admin key), another URL with --url, or another control plane with --profile (berth profile list).`;
  }

  async #fetch(
    method: string,
    url: string,
    init: { headers: Record<string, string>; body: string | Buffer | undefined; timeoutMs: number },
  ): Promise<Response> {
    try {
      return await fetch(url, {
        method,
        headers: init.headers,
        body: init.body,
        signal: AbortSignal.timeout(init.timeoutMs),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      if (error instanceof Error && error.name === "TimeoutError") {
        throw new ControlPlaneError(
          `${method} ${url} got no answer in ${init.timeoutMs / 1000} s.`,
          0,
          "timeout",
        );
      }
      const reason = cause?.code ?? cause?.message ?? (error as Error).message;
      if (!cause?.code || !UNREACHABLE.has(cause.code)) {
        throw new ControlPlaneError(`${method} ${url} failed: ${cause?.message ?? reason}`, 0, reason);
      }
      throw new ControlPlaneError(
        `Cannot reach the control plane at ${this.baseUrl}${this.urlSource ? `, taken from ${this.urlSource}` : ""} (${reason}). Is \`berth up\` running there? (--url or BERTH_URL)`,
        0,
        reason,
      );
    }
  }
}

/**
 * The error of a refused request: the server's `detail` (422 details as `field: message`), and on
 * 401/403 `keyHint` (which server refused the key).
 */
async function refusal(
  method: string,
  where: string,
  response: Response,
  keyHint: string,
): Promise<ControlPlaneError> {
  const text = await response.text().catch(() => "");
  let detail = text || response.statusText;
  try {
    const parsed = JSON.parse(text) as { detail?: unknown };
    if (typeof parsed.detail === "string") detail = parsed.detail;
    else if (Array.isArray(parsed.detail)) {
      detail = parsed.detail
        .map((d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).join(".")}: ${d.msg ?? ""}`)
        .join("; ");
    }
  } catch {
    // not JSON: the raw text is the detail
  }
  const hint = response.status === 401 || response.status === 403 ? keyHint : "";
  return new ControlPlaneError(
    `${method} ${where} failed with ${response.status}: ${detail}${hint}`,
    response.status,
    detail,
  );
}
