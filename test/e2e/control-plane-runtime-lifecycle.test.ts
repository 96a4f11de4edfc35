// A deployment's life on the local runtime: blue/green updates with no failed request, failed
// builds and crashing revisions that leave the previous one serving, interrupts, queueing, and
// control plane restarts that bring deployments back without a new revision.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { packDirectory } from "@berth-platform/testkit";
import { Client } from "@langchain/langgraph-sdk";
import { ControlPlaneUnderTest, eventually, isAlive, RUNTIME_PROJECT } from "./control-plane-helpers.js";

const plane = new ControlPlaneUnderTest("runtime-lifecycle-key-0123456789", ["--no-example"]);
let deploymentId = "";
let firstRevision = "";

function client(): Client {
  return new Client({ apiUrl: `${plane.url}/agents/${deploymentId}`, apiKey: plane.key });
}

async function echo(text: string): Promise<{ reply: string; revision: string }> {
  return (await client().runs.wait(null, "echo", { input: { text } })) as { reply: string; revision: string };
}

describe("berth up: local runtime, lifecycle", () => {
  before(async () => {
    await plane.start();
    const deployment = await plane.deploySource("lifecycle", {
      secrets: [{ name: "GREETING", value: "one" }],
    });
    deploymentId = deployment.id;
    firstRevision = deployment.latest_revision_id;
    await plane.waitFor(deploymentId, firstRevision, ["DEPLOYED"]);
  });
  after(async () => {
    await plane.stop();
    plane.cleanup();
  });

  it("blue/green: a secrets PATCH deploys a new revision while a request loop sees no error", async () => {
    const before = plane.runtimeState(deploymentId);
    assert.equal((await echo("a")).reply, "one, a");
    let stop = false;
    const seen: string[] = [];
    const errors: unknown[] = [];
    const loop = (async () => {
      while (!stop) {
        try {
          seen.push((await echo("loop")).reply);
        } catch (error) {
          errors.push(error);
        }
      }
    })();
    const patched = await plane.api("PATCH", `/v2/deployments/${deploymentId}`, {
      secrets: [{ name: "GREETING", value: "two" }],
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.json));
    const revision = await plane.waitFor(deploymentId, patched.json.latest_revision_id, ["DEPLOYED"]);
    await eventually(() => seen.at(-1) === "two, loop", "the loop is answered by the new revision");
    stop = true;
    await loop;
    assert.deepEqual(errors, []);
    assert.ok(seen.includes("one, loop") || seen.length > 0);
    const after = plane.runtimeState(deploymentId);
    assert.equal(after.revision_id, revision.id);
    assert.notEqual(after.pid, before.pid);
    await eventually(() => !isAlive(before.pid), "the old revision's process has exited");
    const build = await plane.logText(deploymentId, revision.id, "build");
    assert.match(build, /Reusing build/, "a secrets-only change does not rebuild");
    const deployment = (await plane.api("GET", `/v2/deployments/${deploymentId}`)).json;
    assert.equal(deployment.active_revision_id, revision.id);
  });

  it("a failing build ends BUILD_FAILED with its output in the logs; the previous revision keeps serving", async () => {
    const active = (await plane.api("GET", `/v2/deployments/${deploymentId}`)).json.active_revision_id;
    const created = await plane.api("POST", `/v2/deployments/${deploymentId}/revisions`, {
      source_config: { build_command: "echo the-build-broke >&2; exit 3" },
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    await plane.waitFor(deploymentId, created.json.id, ["BUILD_FAILED"]);
    const logs = await plane.logText(deploymentId, created.json.id, "build");
    assert.match(logs, /the-build-broke/);
    assert.match(logs, /exit code 3/);
    const deployment = (await plane.api("GET", `/v2/deployments/${deploymentId}`)).json;
    assert.equal(deployment.active_revision_id, active);
    assert.equal((await echo("still")).reply, "two, still");
  });

  it("a graph that does not load fails the BUILD with each reason in the build log (as ERROR); the previous keeps serving", async () => {
    const active = (await plane.api("GET", `/v2/deployments/${deploymentId}`)).json.active_revision_id;
    const created = await reviseRuntimeProject("broken.json");
    await plane.waitFor(deploymentId, created.json.id, ["BUILD_FAILED"]);
    const logs = await plane.logText(deploymentId, created.json.id, "build");
    // A syntax error: its message, file and line (project-relative), not the bundler's stack.
    assert.match(
      logs,
      /ERROR graph syntax does not load: .*\.\/src\/broken-syntax\.ts:2:23: Expected identifier but found ";"/,
    );
    assert.doesNotMatch(logs, /esbuild\/lib\/main\.js|failureErrorWithLog/);
    // A mistyped path: the entry of broken.json, and what the directory holds.
    assert.match(
      logs,
      /ERROR graph typo does not load: .*\.\/src\/ecoh\.ts does not exist \("graphs\.typo": "\.\/src\/ecoh\.ts:graph" in broken\.json\); \.\/src holds: .*echo\.ts/,
    );
    assert.doesNotMatch(logs, /src\/src\//);
    assert.match(logs, /ERROR graph noexport does not load: .*no export "nope"/);
    assert.match(logs, /ERROR graph nodep does not load: .*berth-no-such-package-4711/);
    assert.match(logs, /graph echo loads/);
    assert.match(logs, /A graph does not load/);
    const errorsOnly = await plane.api(
      "GET",
      `/v2/deployments/${deploymentId}/revisions/${created.json.id}/logs?type=build&level=ERROR&limit=100`,
    );
    assert.equal(errorsOnly.status, 200);
    assert.ok(
      (errorsOnly.json.logs as { level: string }[]).every((l) => l.level === "ERROR") &&
        errorsOnly.json.logs.length >= 3,
      JSON.stringify(errorsOnly.json),
    );
    // `berth logs --level error` alone says what is wrong.
    assert.match(
      (errorsOnly.json.logs as { message: string }[]).map((l) => l.message).join("\n"),
      /broken-syntax\.ts:2:23: Expected identifier/,
    );
    const deployment = (await plane.api("GET", `/v2/deployments/${deploymentId}`)).json;
    assert.equal(deployment.active_revision_id, active);
    assert.equal((await echo("kept")).reply, "two, kept");
  });

  it("a revision that crashes on start ends DEPLOY_FAILED with the server's output; the previous keeps serving", async () => {
    const active = (await plane.api("GET", `/v2/deployments/${deploymentId}`)).json.active_revision_id;
    const created = await reviseRuntimeProject("crash.json");
    await plane.waitFor(deploymentId, created.json.id, ["DEPLOY_FAILED"]);
    const logs = await plane.logText(deploymentId, created.json.id, "deploy");
    // The crash comes from the agent's stderr: at ERROR, so a level filter shows the cause.
    assert.match(logs, /ERROR .*crash-on-import/);
    assert.match(logs, /did not start/);
    const deployment = (await plane.api("GET", `/v2/deployments/${deploymentId}`)).json;
    assert.equal(deployment.active_revision_id, active);
    assert.equal((await echo("alive")).reply, "two, alive");
  });

  it("queues a revision behind one in progress, and interrupt stops a stuck build", async () => {
    const stuck = await plane.api("POST", `/v2/deployments/${deploymentId}/revisions`, {
      source_config: { build_command: "echo stuck-build-started; sleep 600" },
    });
    assert.equal(stuck.status, 201);
    await plane.waitFor(deploymentId, stuck.json.id, ["BUILDING"]);
    await eventually(
      async () => (await plane.logText(deploymentId, stuck.json.id, "build")).includes("stuck-build-started"),
      "the stuck build is running",
    );
    const queued = await plane.api("POST", `/v2/deployments/${deploymentId}/revisions`, {
      secrets: [{ name: "GREETING", value: "three" }],
      // Inputs carry over from the latest revision (the crashing one): point back at the good config.
      source_revision_config: { graph_config_path: "graph.json" },
      source_config: { build_command: "true" },
    });
    assert.equal(queued.status, 201);
    await plane.waitFor(deploymentId, queued.json.id, ["QUEUED"]);

    const interrupted = await plane.api(
      "POST",
      `/v2/deployments/${deploymentId}/revisions/${stuck.json.id}/interrupt`,
    );
    assert.equal(interrupted.status, 200, JSON.stringify(interrupted.json));
    assert.equal((await plane.revision(deploymentId, stuck.json.id)).status, "INTERRUPTED");
    // The queued revision goes next, and deploys.
    await plane.waitFor(deploymentId, queued.json.id, ["DEPLOYED"]);
    assert.equal((await echo("next")).reply, "three, next");
    assert.match(await plane.logText(deploymentId, stuck.json.id, "build"), /Stopped/);
  });

  it("redeploy rolls back to an older revision's inputs", async () => {
    const redeployed = await plane.api(
      "POST",
      `/v2/deployments/${deploymentId}/revisions/${firstRevision}/redeploy`,
    );
    assert.equal(redeployed.status, 200, JSON.stringify(redeployed.json));
    await plane.waitFor(deploymentId, redeployed.json.latest_revision_id, ["DEPLOYED"]);
    assert.equal((await echo("back")).reply, "one, back");
  });

  it("an agent server that crashes is restarted (new process, same URL) and its deploy log says so", async () => {
    const crashed = plane.runtimeState(deploymentId);
    process.kill(crashed.pid, "SIGKILL");
    await eventually(
      () => plane.runtimeState(deploymentId).pid !== crashed.pid,
      "the supervisor started a new process",
    );
    await eventually(
      async () => {
        try {
          return (await echo("revived")).reply === "one, revived";
        } catch {
          return false;
        }
      },
      "the restarted agent answers",
      30_000,
    );
    const logs = await plane.logText(deploymentId, crashed.revision_id, "deploy");
    assert.match(logs, /exited unexpectedly.*restarting/);
  });

  it("after a crash of the control plane the agent is adopted; after a clean stop it is restarted", async () => {
    const revisionsBefore = (await plane.api("GET", `/v2/deployments/${deploymentId}/revisions`)).json
      .resources.length;
    const serving = plane.runtimeState(deploymentId);
    await plane.stop("SIGKILL");
    assert.ok(isAlive(serving.pid), "the agent server outlives a crashed control plane");
    await plane.start();
    await eventually(async () => {
      try {
        return (await echo("adopted")).reply === "one, adopted";
      } catch {
        return false;
      }
    }, "the adopted agent answers");
    assert.equal(plane.runtimeState(deploymentId).pid, serving.pid);

    await plane.stop("SIGTERM");
    await eventually(() => !isAlive(serving.pid), "a clean stop stops the agent servers");
    await plane.start();
    await eventually(
      async () => {
        try {
          return (await echo("restarted")).reply === "one, restarted";
        } catch {
          return false;
        }
      },
      "the restarted agent answers",
      30_000,
    );
    assert.notEqual(plane.runtimeState(deploymentId).pid, serving.pid);
    const revisionsAfter = (await plane.api("GET", `/v2/deployments/${deploymentId}/revisions`)).json
      .resources.length;
    assert.equal(revisionsAfter, revisionsBefore, "no revision is created by a restart");
  });
});

/** A new revision of the runtime project with another graph configuration (and no build step). */
async function reviseRuntimeProject(graphConfigPath: string) {
  const objectPath = await plane.upload(deploymentId, packDirectory(RUNTIME_PROJECT));
  const created = await plane.api("POST", `/v2/deployments/${deploymentId}/revisions`, {
    source_revision_config: { source_tarball_path: objectPath, graph_config_path: graphConfigPath },
    // Inputs carry over from the latest revision (maybe a broken build): replace its build command.
    source_config: { build_command: "true" },
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  return created;
}
