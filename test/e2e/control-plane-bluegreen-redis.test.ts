// Blue/green without a hold (issue 14): `berth up --redis-url` gives each deployment's agent
// servers Redis and a shared data directory, so a revision switch sends new requests to the new
// revision at once while the old one finishes its runs. Runs held open on the old revision (gated
// graph: they wait for a store item the test writes) show the new revision serving before the
// old one has drained, and the old runs being joined, streamed and cancelled through the
// deployment URL, now answered by the new revision. Needs REDIS_URL (CI exports it).
import assert from "node:assert/strict";
import { after, before, describe, it, test } from "node:test";
import { Client } from "@langchain/langgraph-sdk";
import { Redis } from "ioredis";
import { ControlPlaneUnderTest, eventually, isAlive } from "./control-plane-helpers.js";

const REDIS_URL = process.env.REDIS_URL;

if (!REDIS_URL) {
  console.log("# REDIS_URL is not set: the blue/green-with-Redis test is skipped.");
  test("blue/green without a hold", { skip: "REDIS_URL is not set" }, () => {});
} else {
  describe("berth up --redis-url: blue/green without a hold", () => {
    // A long drain: the old revision's held runs must be able to outlast the whole test step.
    const plane = new ControlPlaneUnderTest("bluegreen-redis-key-0123456789", ["--no-example"], {
      BERTH_DRAIN_SECS: "120",
    });
    let deploymentId = "";
    let firstRevision = "";
    const client = () => new Client({ apiUrl: `${plane.url}/agents/${deploymentId}`, apiKey: plane.key });

    before(async () => {
      await plane.start(["--redis-url", REDIS_URL]);
      const deployment = await plane.deploySource("bluegreen-redis", {
        graphConfig: "gated.json",
        secrets: [{ name: "GREETING", value: "one" }],
      });
      deploymentId = deployment.id;
      firstRevision = deployment.latest_revision_id;
      await plane.waitFor(deploymentId, firstRevision, ["DEPLOYED"]);
    });
    after(async () => {
      await plane.stop();
      plane.cleanup();
      // The deployment's Redis ACL user outlives a stopped control plane (it is deleted with the
      // deployment): leave none behind on the shared Redis.
      if (deploymentId) {
        const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
        await redis.call("ACL", "DELUSER", `berth-dep-${deploymentId}`);
        redis.disconnect();
      }
    });

    it("a switch serves new runs at once while the old revision finishes, joins and streams its runs", async () => {
      const sdk = client();
      const before = plane.runtimeState(deploymentId);
      assert.equal(before.revision_id, firstRevision);

      // Two runs held open on the first revision: one to finish, one to cancel after the switch.
      const heldThread = await sdk.threads.create();
      const cancelThread = await sdk.threads.create();
      const held = await sdk.runs.create(heldThread.thread_id, "gated", {
        input: { gate: "held" },
        streamMode: ["values", "updates"],
        streamResumable: true,
      });
      const doomed = await sdk.runs.create(cancelThread.thread_id, "gated", { input: { gate: "never" } });
      for (const run of [held, doomed]) {
        await eventually(
          async () => (await sdk.runs.get(run.thread_id, run.run_id)).status === "running",
          `run ${run.run_id} is running on the first revision`,
          30_000,
        );
      }
      // A stream of the held run opened on the first revision, kept open across the switch.
      const earlyEvents: string[] = [];
      const earlyStream = (async () => {
        for await (const part of sdk.runs.joinStream(held.thread_id, held.run_id))
          earlyEvents.push(part.event);
      })();

      const patched = await plane.api("PATCH", `/v2/deployments/${deploymentId}`, {
        secrets: [{ name: "GREETING", value: "two" }],
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.json));
      const second = await plane.waitFor(deploymentId, patched.json.latest_revision_id, ["DEPLOYED"]);
      assert.equal(plane.runtimeState(deploymentId).revision_id, second.id);

      // New work goes to the new revision while the old one still holds its runs (nothing waits
      // for the drain: the held run cannot end before the test opens its gate).
      const fresh = (await sdk.runs.wait(null, "echo", { input: { text: "fresh" } })) as { reply: string };
      assert.match(fresh.reply, /^(one|two), fresh$/);
      const echoes = await Promise.all(
        ["a", "b", "c"].map((text) => sdk.runs.wait(null, "echo", { input: { text } })),
      );
      assert.deepEqual(
        echoes.map((values) => (values as { reply: string }).reply.split(", ")[1]),
        ["a", "b", "c"],
      );
      assert.equal((await sdk.runs.get(held.thread_id, held.run_id)).status, "running");
      assert.ok(isAlive(before.pid), "the first revision's process is still finishing its runs");

      // A cancel of an old run, sent through the deployment URL (the new revision), reaches the
      // process executing it.
      await sdk.runs.cancel(doomed.thread_id, doomed.run_id, true);
      const cancelled = await sdk.runs.get(doomed.thread_id, doomed.run_id);
      assert.equal(cancelled.status, "interrupted");

      // Join and stream of the held run through the new revision, then open its gate (a store
      // item written through the new revision, read by the old one from the shared data).
      const joined = sdk.runs.join(held.thread_id, held.run_id);
      const lateEvents: Array<{ event: string; data: unknown }> = [];
      const lateStream = (async () => {
        for await (const part of sdk.runs.joinStream(held.thread_id, held.run_id, { lastEventId: "-1" })) {
          lateEvents.push({ event: part.event, data: part.data });
        }
      })();
      await eventually(() => lateEvents.length > 0, "the rejoined stream replays the held run's events");
      await sdk.store.putItem(["gates"], "held", { open: true });
      const values = (await joined) as { started_by: string; finished_by: string };
      assert.deepEqual(values, { gate: "held", started_by: firstRevision, finished_by: firstRevision });
      await Promise.all([earlyStream, lateStream]);

      // Both streams saw the run through to its end, the rejoined one replayed it from the start.
      assert.ok(earlyEvents.includes("updates"), `early stream: ${earlyEvents.join(",")}`);
      const lateUpdates = lateEvents
        .filter((part) => part.event === "updates")
        .map((part) => Object.keys(part.data as object)[0]);
      assert.deepEqual(lateUpdates, ["start", "wait"]);
      const lastValues = lateEvents.filter((part) => part.event === "values").at(-1)?.data;
      assert.deepEqual(lastValues, values);

      // The old revision exits once its runs are done; nothing was lost on either thread.
      await eventually(() => !isAlive(before.pid), "the first revision's process has exited", 30_000);
      assert.equal((await sdk.runs.get(held.thread_id, held.run_id)).status, "success");
      assert.equal((await sdk.threads.get(heldThread.thread_id)).status, "idle");
      // A thread whose last run was cancelled with action "interrupt" says so, as on the official server.
      assert.equal((await sdk.threads.get(cancelThread.thread_id)).status, "interrupted");
      // The runtime notices the exit by polling, and the deploy log is written in batches.
      await eventually(
        async () =>
          /Previous revision stopped after/.test(await plane.logText(deploymentId, second.id, "deploy")),
        "the deploy log says the previous revision stopped",
      );
      assert.match(
        await plane.logText(deploymentId, second.id, "deploy"),
        /finishes its runs beside the new one/,
      );

      // The new revision serves on alone, and the gated graph runs there too.
      const thread = await sdk.threads.create();
      const after = sdk.runs.wait(thread.thread_id, "gated", { input: { gate: "after" } });
      await eventually(
        async () => (await sdk.threads.get(thread.thread_id)).status === "busy",
        "the post-switch run is running",
      );
      await sdk.store.putItem(["gates"], "after", { open: true });
      assert.deepEqual(await after, { gate: "after", started_by: second.id, finished_by: second.id });
    });
  });
}
