import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseAgentServerConfig } from "../src/config.js";

describe("parseAgentServerConfig", () => {
  it("defaults to port 2024 with fallback, and an explicit port has none", () => {
    const byDefault = parseAgentServerConfig({ flags: {}, env: {}, cwd: "/p" });
    assert.equal(byDefault.port, 2024);
    assert.equal(byDefault.portFallback, true);
    assert.equal(byDefault.graphConfigPath, "/p/graph.json");
    assert.equal(byDefault.dataDir, "/p/.berth/agent-server");
    assert.ok(Object.isFrozen(byDefault));
    const explicit = parseAgentServerConfig({
      flags: { port: "0", config: "x/langgraph.json" },
      env: {},
      cwd: "/p",
    });
    assert.equal(explicit.port, 0);
    assert.equal(explicit.portFallback, false);
    assert.equal(explicit.dataDir, "/p/x/.berth/agent-server");
  });

  it("rejects bad numbers with the setting's name", () => {
    assert.throws(
      () => parseAgentServerConfig({ flags: { port: "http" }, env: {}, cwd: "/" }),
      /Invalid port/,
    );
    assert.throws(
      () => parseAgentServerConfig({ flags: {}, env: { BG_JOB_TIMEOUT_SECS: "-1" }, cwd: "/" }),
      /BG_JOB_TIMEOUT_SECS/,
    );
  });
});
