import { createHash, randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { BadRequestError, ConflictError, NotFoundError, PayloadTooLargeError } from "../errors.js";
import type { ControlPlaneStorage } from "../storage/types.js";

/** How long a minted upload URL may be used. */
const UPLOAD_URL_TTL_MS = 60 * 60 * 1000;

function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * Source uploads, as the real service's signed URLs work: `upload-url` mints a one-use URL (the
 * token in it is the credential, stored only as a hash) and an object path; a PUT of the archive to
 * the URL stores it under the data directory; only completed paths of the same deployment are
 * accepted as `source_tarball_path`.
 */
export class UploadService {
  constructor(
    private readonly storage: ControlPlaneStorage,
    private readonly options: { objectsDir: string; limitBytes: number },
  ) {}

  /** Mints an upload slot for a deployment of the tenant (404 for a foreign or unknown one). */
  async mint(
    tenantId: string,
    deploymentId: string,
    baseUrl: string,
  ): Promise<{ upload_url: string; object_path: string }> {
    if (!(await this.storage.deployments.get(tenantId, deploymentId))) {
      throw new NotFoundError(`Deployment ID ${deploymentId} not found.`);
    }
    const token = randomBytes(32).toString("base64url");
    const now = Date.now();
    const objectPath = `uploads/${deploymentId}/${randomUUID()}.tar.gz`;
    await this.storage.uploads.create({
      object_path: objectPath,
      tenant_id: tenantId,
      deployment_id: deploymentId,
      token_hash: hashToken(token),
      expires_at: new Date(now + UPLOAD_URL_TTL_MS).toISOString(),
      size: null,
      completed_at: null,
      created_at: new Date(now).toISOString(),
    });
    return { upload_url: `${baseUrl}/v2/uploads/${token}`, object_path: objectPath };
  }

  /**
   * Stores the archive PUT to an upload URL: at most `limitBytes`, gzip (checked by its magic
   * bytes), written to a temporary file and renamed into place only when complete.
   */
  async receive(token: string, body: Readable, declaredLength: number | undefined): Promise<void> {
    const upload = await this.storage.uploads.byTokenHash(hashToken(token));
    if (!upload || Date.parse(upload.expires_at) < Date.now())
      throw new NotFoundError("Upload URL not found or expired.");
    if (upload.completed_at) throw new ConflictError("This upload URL was already used.");
    if (declaredLength !== undefined && declaredLength > this.options.limitBytes) {
      throw new PayloadTooLargeError(`The archive is larger than ${this.options.limitBytes} bytes.`);
    }
    const target = this.fileOf(upload.object_path);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const temporary = `${target}.${process.pid}.partial`;
    let size = 0;
    let head: Buffer | undefined;
    const limit = this.options.limitBytes;
    try {
      await pipeline(
        body,
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            size += chunk.length;
            if (size > limit) throw new PayloadTooLargeError(`The archive is larger than ${limit} bytes.`);
            head ??= chunk.subarray(0, 2);
            yield chunk;
          }
        },
        fs.createWriteStream(temporary, { mode: 0o600 }),
      );
      if (head?.[0] !== 0x1f || head[1] !== 0x8b)
        throw new BadRequestError("The upload is not a gzip archive.");
      if (!(await this.storage.uploads.complete(upload.object_path, size, new Date().toISOString()))) {
        throw new ConflictError("This upload URL was already used.");
      }
      fs.renameSync(temporary, target);
    } finally {
      fs.rmSync(temporary, { force: true });
    }
  }

  /** Where an object path lives on disk (paths are minted here, never taken from requests). */
  fileOf(objectPath: string): string {
    return path.join(this.options.objectsDir, objectPath);
  }
}
