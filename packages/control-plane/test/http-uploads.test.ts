// Source uploads: upload-url mints a one-use URL; a PUT stores the archive; only completed paths of
// the same deployment are accepted as source_tarball_path.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import { usePlane } from "./helpers.js";

const plane = usePlane({ BERTH_UPLOAD_LIMIT_BYTES: "4096" });

async function createRemote(name: string): Promise<string> {
  const created = await plane().call({
    method: "POST",
    url: "/v2/deployments",
    payload: { name, source: "internal_source", source_config: {}, source_revision_config: {}, secrets: [] },
  });
  assert.equal(created.statusCode, 201, created.body);
  return created.json<{ id: string }>().id;
}

async function mint(id: string, headers: Record<string, string> = {}) {
  return plane().call({ method: "POST", url: `/v2/deployments/${id}/upload-url`, headers });
}

function tokenPath(uploadUrl: string): string {
  return new URL(uploadUrl).pathname;
}

describe("upload-url", () => {
  it("mints a URL and object path, stores a gzip PUT once, and accepts the path for that deployment", async () => {
    const id = await createRemote("uploader");
    const minted = await mint(id);
    assert.equal(minted.statusCode, 200, minted.body);
    const { upload_url, object_path } = minted.json<{ upload_url: string; object_path: string }>();
    assert.match(upload_url, /^http:\/\/.+\/v2\/uploads\/[A-Za-z0-9_-]{40,}$/);
    assert.match(object_path, new RegExp(`^uploads/${id}/[0-9a-f-]{36}\\.tar\\.gz$`));

    const archive = gzipSync(Buffer.from("pretend tar contents"));
    const put = await plane().raw({
      method: "PUT",
      url: tokenPath(upload_url),
      headers: { "content-type": "application/gzip" },
      payload: archive,
    });
    assert.equal(put.statusCode, 200, put.body);
    assert.deepEqual(fs.readFileSync(path.join(plane().dataDir, "objects", object_path)), archive);
    const again = await plane().raw({
      method: "PUT",
      url: tokenPath(upload_url),
      headers: { "content-type": "application/gzip" },
      payload: archive,
    });
    assert.equal(again.statusCode, 409, "an upload URL is used once");

    const patched = await plane().call({
      method: "PATCH",
      url: `/v2/deployments/${id}`,
      payload: {
        source_revision_config: { source_tarball_path: object_path, graph_config_path: "graph.json" },
      },
    });
    assert.equal(patched.statusCode, 200, patched.body);

    // The revision made at create (no archive yet) is SKIPPED by the PATCH's, and its log says why
    // (it used to be empty: the "unexplained SKIPPED revision" of every `deploy` of a new project).
    const revisions = (await plane().call({ method: "GET", url: `/v2/deployments/${id}/revisions` })).json<{
      resources: Array<{ id: string; status: string }>;
    }>().resources;
    assert.equal(revisions.length, 2);
    const [newer, placeholder] = revisions;
    assert.equal(placeholder?.status, "SKIPPED");
    const log = await plane().call({
      method: "GET",
      url: `/v2/deployments/${id}/revisions/${placeholder?.id}/logs?type=build`,
    });
    const lines = log.json<{ logs: Array<{ message: string }> }>().logs.map((l) => l.message);
    assert.match(lines[0] ?? "", /Waiting for the source archive: .*source_tarball_path/);
    assert.equal(
      lines[1],
      `SKIPPED: revision ${newer?.id} was made before this one was built or deployed; only the newest waiting revision of a deployment is built.`,
    );
  });

  it("refuses paths that were not uploaded, or belong to another deployment", async () => {
    const a = await createRemote("owner-a");
    const b = await createRemote("owner-b");
    const { object_path: pathOfA } = (await mint(a)).json<{ object_path: string }>();
    const minted = (await mint(b)).json<{ upload_url: string; object_path: string }>();
    const notUploaded = await plane().call({
      method: "PATCH",
      url: `/v2/deployments/${b}`,
      payload: {
        source_revision_config: { source_tarball_path: minted.object_path, graph_config_path: "graph.json" },
      },
    });
    assert.equal(notUploaded.statusCode, 400, "minted but never uploaded");
    for (const bad of [
      pathOfA,
      "uploads/../../etc/passwd",
      "/tmp/x.tar.gz",
      "https://example.com/x.tar.gz",
    ]) {
      const response = await plane().call({
        method: "PATCH",
        url: `/v2/deployments/${b}`,
        payload: { source_revision_config: { source_tarball_path: bad, graph_config_path: "graph.json" } },
      });
      assert.equal(response.statusCode, 400, bad);
      assert.equal(typeof response.json<{ detail: unknown }>().detail, "string");
    }
  });

  it("refuses non-gzip bodies, oversized archives, unknown tokens, and foreign or keyless minting", async () => {
    const id = await createRemote("strict");
    const url = tokenPath((await mint(id)).json<{ upload_url: string }>().upload_url);
    const notGzip = await plane().raw({
      method: "PUT",
      url,
      headers: { "content-type": "application/gzip" },
      payload: Buffer.from("plain text"),
    });
    assert.equal(notGzip.statusCode, 400);
    const big = await plane().raw({
      method: "PUT",
      url: tokenPath((await mint(id)).json<{ upload_url: string }>().upload_url),
      headers: { "content-type": "application/gzip" },
      payload:
        gzipSync(Buffer.alloc(1)).length > 0
          ? Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.alloc(8192)])
          : Buffer.alloc(0),
    });
    assert.equal(big.statusCode, 413);
    const unknown = await plane().raw({
      method: "PUT",
      url: "/v2/uploads/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      headers: { "content-type": "application/gzip" },
      payload: gzipSync(Buffer.from("x")),
    });
    assert.equal(unknown.statusCode, 404);
    const other = await plane().addTenant();
    assert.equal((await mint(id, { "x-api-key": other.key })).statusCode, 404, "another tenant's deployment");
    const keyless = await plane().raw({ method: "POST", url: `/v2/deployments/${id}/upload-url` });
    assert.equal(keyless.statusCode, 401);
    const leftovers = fs.readdirSync(path.join(plane().dataDir, "objects", "uploads", id));
    assert.deepEqual(leftovers, [], "refused uploads leave no files");
  });
});
