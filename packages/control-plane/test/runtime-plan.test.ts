// The pure parts of the local runtime: spawn plans, build keys, the environment user code gets,
// install command detection, git ref parsing and agent server log lines.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { makeTempDir } from "@berth-platform/testkit";
import { planCreate } from "../src/domain/deployment.js";
import { normalizeResourceSpec } from "../src/domain/resource-spec.js";
import { planAgentProcess } from "../src/runtime/local/agent-process.js";
import { buildKey } from "../src/runtime/local/build-key.js";
import { detectInstallCommand } from "../src/runtime/local/commands.js";
import { agentEnvironment, baseEnvironment } from "../src/runtime/local/environment.js";
import { fullRef, shaFromLsRemote } from "../src/runtime/local/git.js";
import { planLocalResources } from "../src/runtime/local/resources.js";
import { parseServerLine } from "../src/runtime/local/server-log.js";
import { DeploymentCreateRequest } from "../src/schemas/requests.js";
import { ResourceSpecInput } from "../src/schemas/resource-spec.js";

function sample(secrets: Array<{ name: string; value: string }> = []) {
  let n = 0;
  return planCreate(
    DeploymentCreateRequest.parse({
      name: "plan-me",
      source: "repo_host",
      source_config: { repo_url: "https://git.example.com/a/b.git", build_command: "npm run build" },
      source_revision_config: { repo_ref: "main", graph_config_path: "graph.json" },
      secrets,
    }),
    "tenant-1",
    {
      listenerExists: () => false,
      listenerIds: () => [],
      isUploadPath: () => false,
      repoUrlProblem: () => null,
    },
    { now: "2026-01-01T00:00:00.000Z", newId: () => `00000000-0000-4000-8000-00000000000${n++}` },
  );
}

describe("planAgentProcess", () => {
  it("runs the agent server on loopback with the deployment's data and the hand-over flag", () => {
    const plan = planAgentProcess({
      agentCommand: ["/usr/bin/node", "/opt/berth/bin/berth.js", "dev"],
      graphConfigPath: "/data/deployments/d/builds/k/src/graph.json",
      dataDir: "/data/deployments/d/data",
      port: 4321,
      env: { PATH: "/usr/bin", GREETING: "hi" },
      logFile: "/data/deployments/d/logs/r.log",
      token: "t0ken",
    });
    assert.equal(plan.command, "/usr/bin/node");
    assert.deepEqual(plan.args, [
      "/opt/berth/bin/berth.js",
      "dev",
      "--config",
      "/data/deployments/d/builds/k/src/graph.json",
      "--host",
      "127.0.0.1",
      "--port",
      "4321",
      "--data-dir",
      "/data/deployments/d/data",
      "--wait-for-lock",
      "--no-watch",
      "--log-format",
      "json",
    ]);
    assert.equal(plan.cwd, "/data/deployments/d/builds/k/src");
    assert.equal(plan.env.GREETING, "hi");
    assert.equal(plan.env.BERTH_LOG_LEVEL, "info");
    // The credential the proxy sends; never on the command line (ps shows it to every user).
    assert.equal(plan.env.BERTH_AGENT_TOKEN, "t0ken");
    assert.ok(!plan.args.some((arg) => arg.includes("t0ken")));
    assert.throws(() =>
      planAgentProcess({
        ...{ agentCommand: [] },
        graphConfigPath: "",
        dataDir: "",
        port: 1,
        env: {},
        logFile: "",
        token: "",
      }),
    );
  });
});

describe("planAgentProcess with Redis", () => {
  const input = {
    agentCommand: ["/usr/bin/node", "/opt/berth/bin/berth.js", "dev"],
    graphConfigPath: "/data/deployments/d/builds/k/src/graph.json",
    dataDir: "/data/deployments/d/data",
    port: 4321,
    env: { PATH: "/usr/bin", REDIS_KEY_PREFIX: "someone-else:" },
    logFile: "/data/deployments/d/logs/r.log",
    token: "t0ken",
    redis: { url: "redis://127.0.0.1:6379", keyPrefix: "berth:deployment:d:" },
    drainGraceMs: 15_000,
  };

  it("shares the data directory instead of waiting for it, under the deployment's own key prefix", () => {
    const plan = planAgentProcess(input);
    assert.equal(plan.shared, true);
    assert.ok(!plan.args.includes("--wait-for-lock"));
    assert.ok(plan.args.includes("--data-dir"));
    assert.equal(plan.env.REDIS_URI, "redis://127.0.0.1:6379");
    assert.equal(plan.env.REDIS_KEY_PREFIX, "berth:deployment:d:");
    assert.equal(plan.env.BERTH_SHARED_DATA_DIR, "1");
    // Runs still going are handed back before the drain's kill; a deployment's own setting wins.
    assert.equal(plan.env.BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS, "13");
    const own = planAgentProcess({ ...input, env: { BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: "40" } });
    assert.equal(own.env.BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS, "40");
  });

  it("without Redis keeps the hand-over mode and sets none of it", () => {
    const plan = planAgentProcess({ ...input, env: {}, redis: null });
    assert.equal(plan.shared, false);
    assert.ok(plan.args.includes("--wait-for-lock"));
    for (const name of [
      "REDIS_URI",
      "REDIS_KEY_PREFIX",
      "BERTH_SHARED_DATA_DIR",
      "BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS",
    ]) {
      assert.equal(plan.env[name], undefined, name);
    }
  });
});

describe("buildKey", () => {
  it("is equal for equal source and build inputs, whatever the secrets", () => {
    const a = sample([{ name: "A", value: "1" }]).revision;
    const b = { ...sample([{ name: "A", value: "2" }]).revision, id: "other" };
    assert.equal(buildKey(a, "sha1"), buildKey(b, "sha1"));
    assert.notEqual(buildKey(a, "sha1"), buildKey(a, "sha2"));
    assert.notEqual(buildKey(a, "sha1"), buildKey({ ...a, build_command: "npm run other" }, "sha1"));
    assert.match(buildKey(a, "sha1"), /^[0-9a-f]{24}$/);
  });
});

describe("the environment of user code", () => {
  it("inherits tools' variables only, never the control plane's own secrets", () => {
    const base = baseEnvironment({
      PATH: "/usr/bin",
      HOME: "/root",
      HTTPS_PROXY: "http://proxy:3128",
      npm_config_cache: "/cache",
      BERTH_SECRETS_KEY: "k",
      BERTH_API_KEY: "admin",
      BERTH_DATABASE_URL: "postgresql://x",
      DATABASE_URL: "postgresql://y",
      AWS_SECRET_ACCESS_KEY: "aws",
    });
    assert.deepEqual(Object.keys(base).sort(), ["HOME", "HTTPS_PROXY", "PATH", "npm_config_cache"]);
  });

  it("adds the revision's secrets, then reserved variables the secrets cannot override", () => {
    const { deployment, revision } = sample([{ name: "GREETING", value: "hi" }]);
    // The API refuses reserved names (400); a stored one still could not override them.
    revision.secrets.push({ name: "LANGSMITH_HOST_REVISION_ID", value: "forged" });
    const env = agentEnvironment({ PATH: "/usr/bin" }, deployment, revision);
    assert.equal(env.GREETING, "hi");
    assert.equal(env.LANGSMITH_HOST_REVISION_ID, revision.id);
    assert.equal(env.LANGSMITH_HOST_PROJECT_ID, deployment.id);
    assert.equal(env.LANGSMITH_PROJECT, "plan-me");
    assert.equal(env.LANGSMITH_LANGGRAPH_GIT_REF, "main");
    assert.equal(env.NODE_ENV, "production");
    assert.equal(env.LANGSMITH_TRACING, undefined, "no tracing settings: nothing set");
  });

  it("traces to the control plane by default; the user's own endpoint or key wins as a pair", () => {
    const settings = {
      agentUrl: "https://berth.example/agents/d1",
      tracing: { endpoint: "http://127.0.0.1:8124/langsmith-api", apiKey: "berth_trace_x" },
    };
    const plain = sample();
    const env = agentEnvironment({}, plain.deployment, plain.revision, settings);
    assert.equal(env.LANGSMITH_TRACING, "true");
    assert.equal(env.LANGSMITH_ENDPOINT, settings.tracing.endpoint);
    assert.equal(env.LANGSMITH_API_KEY, "berth_trace_x");
    assert.equal(env.LANGSMITH_PROJECT, "plan-me");
    assert.equal(env.LANGGRAPH_API_URL, settings.agentUrl);
    assert.equal(env.LANGSMITH_DISABLE_MULTIPART_STREAMING, "true", "one buffered body per batch to Berth");

    const own = sample([{ name: "LANGSMITH_API_KEY", value: "lsv2_mine" }]);
    const theirs = agentEnvironment({}, own.deployment, own.revision, settings);
    assert.equal(theirs.LANGSMITH_API_KEY, "lsv2_mine");
    assert.equal(
      theirs.LANGSMITH_ENDPOINT,
      undefined,
      "Berth's ingest key never goes to the user's endpoint",
    );
    assert.equal(theirs.LANGSMITH_TRACING, "true");
    assert.equal(
      theirs.LANGSMITH_DISABLE_MULTIPART_STREAMING,
      undefined,
      "the upload to the user's own endpoint is the SDK's default",
    );

    const off = sample([{ name: "LANGSMITH_TRACING", value: "false" }]);
    assert.equal(agentEnvironment({}, off.deployment, off.revision, settings).LANGSMITH_TRACING, "false");

    const disabled = agentEnvironment({}, plain.deployment, plain.revision, { ...settings, tracing: null });
    assert.equal(disabled.LANGSMITH_TRACING, undefined);
    assert.equal(disabled.LANGSMITH_API_KEY, undefined);
    assert.equal(disabled.LANGGRAPH_API_URL, settings.agentUrl);
  });
});

describe("detectInstallCommand", () => {
  it("follows the lock file, npm without one", () => {
    const temp = makeTempDir("berth-lock-");
    try {
      const cases: Array<[string | null, RegExp]> = [
        [null, /^npm install /],
        ["package-lock.json", /^npm ci /],
        ["pnpm-lock.yaml", /^pnpm install --frozen-lockfile/],
        ["yarn.lock", /^yarn install --frozen-lockfile/],
        ["bun.lock", /^bun install/],
      ];
      for (const [file, expected] of cases) {
        const dir = path.join(temp.dir, file ?? "none");
        fs.mkdirSync(dir);
        if (file) fs.writeFileSync(path.join(dir, file), "");
        assert.match(detectInstallCommand(dir), expected, String(file));
      }
    } finally {
      temp.cleanup();
    }
  });
});

describe("git refs", () => {
  it("names branches, tags and HEAD as ls-remote does, and prefers a peeled tag", () => {
    assert.equal(fullRef(null), "HEAD");
    assert.equal(fullRef("main"), "refs/heads/main");
    assert.equal(fullRef("refs/tags/v1"), "refs/tags/v1");
    const output = ["aaa\trefs/tags/v1", "bbb\trefs/tags/v1^{}", "ccc\trefs/heads/main", ""].join("\n");
    assert.equal(shaFromLsRemote(output, "refs/tags/v1"), "bbb");
    assert.equal(shaFromLsRemote(output, "refs/heads/main"), "ccc");
    assert.equal(shaFromLsRemote(output, "refs/heads/gone"), null);
  });
});

describe("parseServerLine", () => {
  it("reads pino levels and messages, and passes other lines through", () => {
    assert.deepEqual(parseServerLine('{"level":50,"msg":"boom","err":{"message":"why"}}'), {
      level: "ERROR",
      message: "boom: why",
    });
    assert.deepEqual(parseServerLine('{"level":40,"msg":"careful"}'), {
      level: "WARNING",
      message: "careful",
    });
    assert.deepEqual(parseServerLine("  Berth agent server listening"), {
      level: "INFO",
      message: "  Berth agent server listening",
    });
    assert.equal(parseServerLine("{not json").level, "INFO");
  });

  it("keeps stderr's level: plain lines are errors, Node's warnings warnings, pino JSON its own", () => {
    assert.equal(parseServerLine("Error: crash-on-import", "stderr").level, "ERROR");
    assert.equal(parseServerLine("    at file:///src/graph.ts:3:9", "stderr").level, "ERROR");
    assert.equal(parseServerLine("(node:12) ExperimentalWarning: x", "stderr").level, "WARNING");
    assert.equal(parseServerLine('{"level":30,"msg":"fine"}', "stderr").level, "INFO");
  });
});

describe("planLocalResources (issue 13)", () => {
  it("applies the memory limit as a heap limit and names every field this runtime ignores", () => {
    const spec = normalizeResourceSpec(
      ResourceSpecInput.parse({ memory_mb: 1024, min_scale: 2, max_scale: 3 }),
    );
    const planned = planLocalResources(spec);
    assert.equal(planned.heapMb, 1536, "75 % of memory_limit_mb (2 × memory_mb by default)");
    assert.match(planned.summary, /memory_limit_mb=2048 applied as a 1536 MB heap limit/);
    assert.match(planned.summary, /Ignored by the local runtime .*min_scale=2, max_scale=3, cpu=1/);
    const ignoredPart = planned.summary.split("Ignored")[1] ?? "";
    assert.doesNotMatch(
      ignoredPart,
      /[:,] memory_(limit_)?mb=/,
      "the applied fields are not listed as ignored",
    );
    assert.deepEqual(planLocalResources(null), {
      heapMb: null,
      summary: "No resource_spec: Node's default heap limit.",
    });
  });

  it("passes the heap limit through NODE_OPTIONS, after the user's own", () => {
    const input = {
      agentCommand: ["/usr/bin/node", "/opt/berth/bin/berth.js", "dev"],
      graphConfigPath: "/d/src/graph.json",
      dataDir: "/d/data",
      port: 1,
      logFile: "/d/logs/r.log",
      token: "t",
      heapMb: 1536,
    };
    assert.equal(planAgentProcess({ ...input, env: {} }).env.NODE_OPTIONS, "--max-old-space-size=1536");
    assert.equal(
      planAgentProcess({ ...input, env: { NODE_OPTIONS: "--enable-source-maps" } }).env.NODE_OPTIONS,
      "--enable-source-maps --max-old-space-size=1536",
    );
    assert.equal(planAgentProcess({ ...input, heapMb: null, env: {} }).env.NODE_OPTIONS, undefined);
  });
});
