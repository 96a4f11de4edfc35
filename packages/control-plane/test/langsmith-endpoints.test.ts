// Where users point the SDK (issue 30, item 1): LANGSMITH_ENDPOINT=<control plane>, <control
// plane>/api/v1 (self-hosted LangSmith's form) and <control plane>/langsmith-api all deliver
// `traceable` runs, with no "backend version is older" warning; /info's claims; no route clash.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { ADMIN_KEY } from "./helpers.js";
import { collect, type SdkPlane, STORAGES, sdkClient, sdkPlane } from "./sdk-plane.js";

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** A user's program: traceable with the default client from the environment, then the v2 client. */
const PROGRAM = `
import { Client } from "langsmith";
import { traceable } from "langsmith/traceable";
const client = new Client();
const inner = traceable(async (x) => x * 2, { name: "inner", client });
const outer = traceable(async (x) => inner(x), { name: "env-endpoint", client });
await outer(21);
await client.awaitPendingTraceBatches();
// The generated client's getter compares /info's version with what it needs (and warns below).
void client.runs;
await new Promise((resolve) => setTimeout(resolve, 500));
process.stdout.write("done\\n");
`;

function runProgram(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", PROGRAM], {
      cwd: packageDir,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

for (const storage of STORAGES) {
  describe(`LangSmith endpoints (${storage})`, () => {
    let sp: SdkPlane;
    before(async () => {
      sp = await sdkPlane(storage);
    });
    after(async () => sp.close());

    for (const suffix of ["", "/api/v1", "/langsmith-api"]) {
      it(`traceable with LANGSMITH_ENDPOINT=<control plane>${suffix} delivers, without a version warning`, async () => {
        const project = `env-${randomUUID().slice(0, 8)}`;
        const result = await runProgram({
          LANGSMITH_ENDPOINT: `${sp.base}${suffix}`,
          LANGSMITH_API_KEY: ADMIN_KEY,
          LANGSMITH_TRACING: "true",
          LANGSMITH_PROJECT: project,
        });
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stdout, /done/);
        assert.doesNotMatch(result.stderr, /older than/);
        assert.doesNotMatch(result.stderr, /Failed to fetch info/);
        await sp.plane.plane.traceQueue.settled();
        const runs = await collect(sdkClient(`${sp.base}${suffix}`).listRuns({ projectName: project }));
        assert.deepEqual(runs.map((r) => r.name).sort(), ["env-endpoint", "inner"]);
      });
    }

    it("GET /info claims LangSmith 0.16.0 with Berth's features, at every mount", async () => {
      for (const suffix of ["", "/api/v1", "/langsmith-api"]) {
        const res = await fetch(`${sp.base}${suffix}/info`);
        assert.equal(res.status, 200);
        const info = (await res.json()) as {
          version: string;
          instance_flags: Record<string, boolean>;
          batch_ingest_config: { use_multipart_endpoint: boolean };
        };
        assert.equal(info.version, "0.16.0");
        assert.equal(info.batch_ingest_config.use_multipart_endpoint, true);
        assert.equal(info.instance_flags.sdb_query_enabled, true);
        assert.equal(info.instance_flags.gzip_body_enabled, false);
      }
    });

    it("the control plane's own routes still answer at the root beside the LangSmith ones", async () => {
      const ok = await fetch(`${sp.base}/ok`);
      assert.equal(ok.status, 200);
      const deployments = await fetch(`${sp.base}/v2/deployments`, { headers: { "x-api-key": ADMIN_KEY } });
      assert.equal(deployments.status, 200);
      // A browser's page load of a dashboard path is the app; an API path without a key is a 401.
      const page = await fetch(`${sp.base}/tracing-projects`, { headers: { accept: "text/html" } });
      assert.equal(page.status, 200);
      assert.match(page.headers.get("content-type") ?? "", /text\/html/);
      const sessions = await fetch(`${sp.base}/sessions`);
      assert.equal(sessions.status, 401);
      assert.ok(((await sessions.json()) as { detail: string }).detail);
    });
  });
}
