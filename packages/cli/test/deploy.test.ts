// The pieces of `berth deploy` that need no control plane: names, packing, the client's errors.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createServer, type Server } from "node:http";
import path from "node:path";
import { after, describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import { makeTempDir } from "@berth-platform/testkit";
import { deploymentNameFrom } from "../src/commands/deploy.js";
import { ControlPlaneClient, type ControlPlaneError } from "../src/control-plane-client.js";
import { isExcluded, listProjectFiles, packProject } from "../src/pack.js";

/** The file names in an uncompressed tar (ustar headers: name at 0, size at 124, 512-byte blocks). */
function tarNames(tar: Buffer): string[] {
  const names: string[] = [];
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const name = header.subarray(0, 100).toString("utf8").replace(/\0.*$/s, "");
    const prefix = header.subarray(345, 500).toString("utf8").replace(/\0.*$/s, "");
    const size =
      Number.parseInt(header.subarray(124, 136).toString("utf8").replace(/\0.*$/s, "").trim(), 8) || 0;
    names.push(prefix ? `${prefix}/${name}` : name);
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return names;
}

describe("berth deploy: deployment names", () => {
  it("makes a directory name valid for the control plane", () => {
    assert.equal(deploymentNameFrom("react-agent"), "react-agent");
    assert.equal(deploymentNameFrom("My_Agent 2"), "my-agent-2");
    assert.equal(deploymentNameFrom("2fast--agent!"), "fast-agent");
    assert.equal(deploymentNameFrom("__"), "agent");
    assert.equal(deploymentNameFrom(`a${"b".repeat(70)}-x`).length, 63);
    assert.equal(deploymentNameFrom(`${"a".repeat(62)}-b`), "a".repeat(62), "no trailing '-' after the cut");
  });
});

describe("berth deploy: packing", () => {
  const temp = makeTempDir();
  after(() => temp.cleanup());

  it("leaves out installs, VCS data, build output, Berth state, .env files and symlinks", async () => {
    const dir = path.join(temp.dir, "project");
    const write = (rel: string, text = "x") => {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    };
    write("graph.json", "{}");
    write("src/agent.ts", "export const graph = 1;");
    write("src/lib/deep.ts");
    write(".env.example");
    write("node_modules/x/index.js");
    write("src/node_modules/y.js");
    write(".git/HEAD");
    write("dist/agent.js");
    write(".berth/agent-server/data.sqlite");
    write(".env");
    write(".env.local");
    fs.symlinkSync(path.join(dir, "graph.json"), path.join(dir, "link.json"));

    assert.deepEqual(listProjectFiles(dir), ["graph.json", "src/agent.ts", "src/lib/deep.ts"]);
    const packed = await packProject(dir);
    assert.deepEqual(packed.files, ["graph.json", "src/agent.ts", "src/lib/deep.ts"]);
    assert.equal(packed.archive[0], 0x1f, "gzip");
    assert.equal(packed.archive[1], 0x8b);
    assert.deepEqual(tarNames(gunzipSync(packed.archive)), packed.files);
    assert.equal(isExcluded("dist/graph.json"), true);
    assert.equal(isExcluded("graph.json"), false);
  });

  it("honours .gitignore files (each relative to its directory, negations included) and the root .dockerignore", () => {
    const dir = path.join(temp.dir, "ignoring");
    const write = (rel: string, text = "x") => {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    };
    write(".gitignore", "*.log\n!keep.log\nsecret-data/\n/coverage\n");
    write(".dockerignore", "docs\n**/*.md\n");
    write("graph.json", "{}");
    write("src/agent.ts");
    write("src/.gitignore", "generated.ts\n");
    write("src/generated.ts");
    write("src/deep/generated.ts");
    write("other/generated.ts");
    write("debug.log");
    write("keep.log");
    write("secret-data/a.json");
    write("src/secret-data/b.json");
    write("coverage/index.html");
    write("src/coverage/kept.ts");
    write("docs/guide.txt");
    write("README.md");
    write("src/NOTES.md");
    assert.deepEqual(listProjectFiles(dir), [
      ".dockerignore",
      ".gitignore",
      "graph.json",
      "keep.log",
      "other/generated.ts",
      "src/.gitignore",
      "src/agent.ts",
      "src/coverage/kept.ts",
    ]);
  });
});

describe("berth deploy: control plane client", () => {
  const servers: Server[] = [];
  after(() => {
    for (const s of servers) s.close();
  });

  async function stub(status: number, body: unknown): Promise<string> {
    const server = createServer((_req, res) => {
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  }

  it("carries the server's detail into its errors (400 text, 422 list)", async () => {
    const bad = new ControlPlaneClient(await stub(400, { detail: "name is taken." }), "k");
    await assert.rejects(bad.getDeployment("d"), (error: ControlPlaneError) => {
      assert.equal(error.status, 400);
      assert.equal(error.detail, "name is taken.");
      assert.match(
        error.message,
        /GET http:\/\/127\.0\.0\.1:\d+\/v2\/deployments\/d failed with 400: name is taken\./,
      );
      return true;
    });
    const invalid = new ControlPlaneClient(
      await stub(422, { detail: [{ loc: ["body", "name"], msg: "Field required", type: "missing" }] }),
      "k",
    );
    await assert.rejects(
      invalid.createSourceDeployment("x", []),
      /failed with 422: body\.name: Field required/,
    );
    // An auth error names the URL it called and where that URL came from.
    const refusing = await stub(401, { detail: "Invalid API key." });
    const unauthorized = new ControlPlaneClient(refusing, "k", undefined, "the running berth up");
    await assert.rejects(unauthorized.findDeploymentByName("x"), (error: Error) => {
      assert.ok(error.message.startsWith(`GET ${refusing}/v2/deployments failed with 401: Invalid API key.`));
      assert.ok(error.message.includes(`The control plane at ${refusing} (URL from the running berth up)`));
      assert.match(error.message, /BERTH_API_KEY/);
      return true;
    });
  });

  it("says when nothing listens at the URL", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise((resolve) => server.close(resolve));
    const client = new ControlPlaneClient(`http://127.0.0.1:${port}/`, "k");
    await assert.rejects(
      client.findDeploymentByName("x"),
      /Cannot reach the control plane at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/,
    );
  });
});
