// `berth deploy` packs what git and docker would: .gitignore files and .dockerignore are honoured
// (issue 13), checked through the spawned CLI against a spawned `berth up`.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { runBerth } from "./cli-helpers.js";
import { ControlPlaneUnderTest } from "./control-plane-helpers.js";

const KEY = "cli-deploy-ignore-key-0123456789abcdef";

describe("berth deploy honours .gitignore and .dockerignore", () => {
  const plane = new ControlPlaneUnderTest(KEY, ["--no-runtime"]);
  before(() => plane.start());
  after(async () => {
    await plane.stop();
    plane.cleanup();
  });

  it("leaves ignored files out of the uploaded archive", async () => {
    const project = path.join(plane.temp.dir, "project");
    const write = (rel: string, text = "x") => {
      fs.mkdirSync(path.dirname(path.join(project, rel)), { recursive: true });
      fs.writeFileSync(path.join(project, rel), text);
    };
    write("graph.json", JSON.stringify({ graphs: { agent: "./src/agent.ts:graph" } }));
    write("package.json", "{}");
    write("src/agent.ts", "export const graph = 1;");
    write(".gitignore", "*.log\nfixtures/\n");
    write(".dockerignore", "docs\n");
    write("debug.log");
    write("fixtures/big.json");
    write("docs/guide.md");
    const result = await runBerth(["deploy", project, "--no-wait", "--name", "ignoring"], {
      BERTH_URL: plane.url,
      BERTH_API_KEY: KEY,
    });
    const out = result.stdout + result.stderr;
    assert.equal(result.status, 0, out);
    // graph.json, package.json, src/agent.ts, .gitignore, .dockerignore: nothing ignored is sent.
    assert.match(out, /Packed .*: 5 files/);
  });
});
