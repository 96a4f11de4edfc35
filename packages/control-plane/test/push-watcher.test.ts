// build_on_push: a moved branch creates one revision (rapid pushes: the older waiting ones are
// SKIPPED), by the periodic check and by the push webhook (a doorbell without a key).
import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, it } from "node:test";
import pino from "pino";
import type { Deployment } from "../src/domain/types.js";
import { DeploymentService } from "../src/services/deployments.js";
import { IntegrationService } from "../src/services/integrations.js";
import { KeyedMutex } from "../src/services/mutex.js";
import { PushWatcher, pushDecision, repoKey, watchedRef } from "../src/services/push-watcher.js";
import { RevisionService } from "../src/services/revisions.js";
import { openPlane, usePlane, waitFor } from "./helpers.js";
import {
  buildLog,
  built,
  createDeployment,
  GIT_HOSTS,
  getDeployment,
  git,
  head,
  hosts,
  makeRepo,
  revisions,
  setStatus,
} from "./push-fixtures.js";

describe("build_on_push rules (pure)", () => {
  it("repository URLs match across spellings; other repositories do not", () => {
    const key = repoKey("https://github.com/org/agent");
    for (const spelling of [
      "https://github.com/org/agent.git",
      "https://github.com/Org/Agent/",
      "http://github.com/org/agent.git/",
      "git@github.com:org/agent.git",
      "ssh://git@github.com/org/agent",
      "https://user:token@github.com/org/agent.git",
    ]) {
      assert.equal(repoKey(spelling), key, spelling);
    }
    assert.notEqual(repoKey("https://github.com/org/agent-2"), key);
    assert.notEqual(repoKey("https://gitlab.com/org/agent"), key);
    assert.equal(repoKey("file:///srv/git/agent.git"), repoKey("/srv/git/agent/"));
  });

  it("decides from the latest revision's commit, or waits for the one it will build", () => {
    const sha = "a".repeat(40);
    const other = "b".repeat(40);
    assert.equal(pushDecision("DEPLOYED", sha, sha), "up-to-date");
    assert.equal(pushDecision("BUILD_FAILED", sha.slice(0, 7), sha), "up-to-date");
    assert.equal(pushDecision("DEPLOYED", other, sha), "build");
    assert.equal(pushDecision("AWAITING_BUILD", other.slice(0, 7), sha), "build");
    assert.equal(pushDecision("AWAITING_BUILD", null, sha), "pending");
    assert.equal(pushDecision("BUILDING", null, sha), "pending");
    assert.equal(pushDecision("CREATE_FAILED", null, sha), "build");
  });

  it("follows branches of READY repo_host deployments with build_on_push true; never tags", () => {
    const base = {
      status: "READY",
      source: "repo_host",
      source_config: { repo_url: "https://git.example/o/r", build_on_push: true },
      source_revision_config: { repo_ref: "main" },
    } as unknown as Deployment;
    const with_ = (patch: Record<string, unknown>) => ({ ...base, ...patch }) as Deployment;
    assert.equal(watchedRef(base), "refs/heads/main");
    assert.equal(
      watchedRef(with_({ source_revision_config: { repo_ref: "refs/heads/dev" } })),
      "refs/heads/dev",
    );
    assert.equal(watchedRef(with_({ source_revision_config: { repo_ref: null } })), "HEAD");
    assert.equal(watchedRef(with_({ source_revision_config: { repo_ref: "refs/tags/v1" } })), null);
    assert.equal(watchedRef(with_({ source_config: { ...base.source_config, build_on_push: false } })), null);
    assert.equal(watchedRef(with_({ source_config: { ...base.source_config, build_on_push: null } })), null);
    assert.equal(watchedRef(with_({ status: "AWAITING_DATABASE" })), null);
    assert.equal(watchedRef(with_({ source: "internal_source" })), null);
  });
});

describe("build_on_push: the periodic check", () => {
  const plane = usePlane({ BERTH_GIT_HOSTS: GIT_HOSTS, BERTH_PUSH_POLL_SECS: "0" });
  const watcher = () => plane().plane.pushWatcher;

  it("a push creates exactly one revision with the same inputs, logged as triggered by it", async () => {
    const repo = makeRepo("one");
    const d = await createDeployment(plane, "push-one", repo.url);
    const [first] = await revisions(plane, d.id);
    assert.ok(first);

    // The first revision has not been built: it will build the branch as it is, so no second one.
    await watcher().check();
    assert.equal((await revisions(plane, d.id)).length, 1);

    // Built, and the branch did not move: nothing to do.
    await built(plane, first, head(repo.dir));
    await watcher().check();
    await watcher().check();
    assert.equal((await revisions(plane, d.id)).length, 1);

    const sha = repo.push();
    await watcher().check();
    const after = await revisions(plane, d.id);
    assert.equal(after.length, 2);
    const [newest] = after;
    assert.ok(newest);
    assert.notEqual(newest.id, first.id);
    assert.equal(newest.source_revision_config.repo_ref, "main");
    assert.equal(newest.source_revision_config.graph_config_path, "graph.json");
    assert.equal(newest.source_revision_config.repo_commit_sha, null);
    assert.equal(after[1]?.status, "DEPLOYED");
    const deployment = await getDeployment(plane, d.id);
    assert.equal(deployment.latest_revision_id, newest.id);
    assert.deepEqual(
      deployment.secrets.map((s) => s.name),
      ["GREETING"],
    );
    assert.ok(
      (await buildLog(plane, d.id, newest.id)).includes(`Triggered by a push to main (${sha.slice(0, 7)})`),
    );
    await waitFor(
      () => revisions(plane, d.id),
      (rs) => rs[0]?.status === "AWAITING_BUILD",
    );

    // The same push, checked again while its revision waits: still one revision.
    await watcher().check();
    await watcher().check();
    assert.equal((await revisions(plane, d.id)).length, 2);
  });

  it("rapid pushes: older waiting revisions become SKIPPED, only the newest proceeds (queued behind a build)", async () => {
    const repo = makeRepo("rapid");
    const d = await createDeployment(plane, "push-rapid", repo.url);
    const [first] = await revisions(plane, d.id);
    assert.ok(first);
    await built(plane, first, head(repo.dir));

    repo.push();
    await watcher().check();
    const h2 = repo.push();
    await watcher().check();
    let all = await revisions(plane, d.id);
    assert.equal(all.length, 3);
    assert.equal(all[1]?.status, "SKIPPED");
    const second = await waitFor(
      () => revisions(plane, d.id),
      (rs) => rs[0]?.status === "AWAITING_BUILD",
    );
    const r2 = second[0];
    assert.ok(r2);

    // r2 is building; two more pushes queue behind it and only the newest of them stays.
    await setStatus(plane, r2, "BUILDING");
    repo.push();
    await watcher().check();
    await waitFor(
      () => revisions(plane, d.id),
      (rs) => rs[0]?.status === "QUEUED",
    );
    const h4 = repo.push();
    await watcher().check();
    all = await waitFor(
      () => revisions(plane, d.id),
      (rs) => rs[0]?.status === "QUEUED",
    );
    assert.deepEqual(
      all.map((r) => r.status),
      ["QUEUED", "SKIPPED", "BUILDING", "SKIPPED", "DEPLOYED"],
    );

    // r2 finishes (it built h2); the queued revision goes on, and the branch is where it asked for.
    await built(plane, { ...r2, status: "BUILDING" }, h2);
    all = await waitFor(
      () => revisions(plane, d.id),
      (rs) => rs[0]?.status === "AWAITING_BUILD",
    );
    await watcher().check();
    assert.equal((await revisions(plane, d.id)).length, 5);
    assert.ok(
      (await buildLog(plane, d.id, all[0]?.id ?? "")).includes(
        `Triggered by a push to main (${h4.slice(0, 7)})`,
      ),
    );
  });

  it("a build that failed on the pushed commit is not retried until the next push, also after a restart", async () => {
    const repo = makeRepo("failing");
    const d = await createDeployment(plane, "push-failing", repo.url);
    const [first] = await revisions(plane, d.id);
    assert.ok(first);
    await built(plane, first, head(repo.dir));
    repo.push();
    await watcher().check();
    const [triggered] = await waitFor(
      () => revisions(plane, d.id),
      (rs) => rs[0]?.status === "AWAITING_BUILD",
    );
    assert.ok(triggered);
    // As the runtime leaves it: BUILD_FAILED, no commit recorded.
    await setStatus(plane, triggered, "BUILD_FAILED");
    await watcher().check();
    assert.equal((await revisions(plane, d.id)).length, 2);

    // A fresh watcher (as after a restart) reads the commit back from the revision's log line.
    const { storage, provisioner } = plane().plane;
    const locks = new KeyedMutex();
    const integrations = new IntegrationService([{ name: "local", directory: hosts.dir }]);
    const deployments = new DeploymentService(storage, locks, provisioner, integrations);
    const fresh = new PushWatcher({
      storage,
      revisions: new RevisionService(storage, deployments, locks, provisioner),
      integrations,
      logger: pino({ level: "silent" }),
    });
    try {
      await fresh.check();
      assert.equal((await revisions(plane, d.id)).length, 2);
      repo.push();
      await fresh.check();
      assert.equal((await revisions(plane, d.id)).length, 3);
    } finally {
      await fresh.stop();
    }
  });

  it("never for build_on_push false or a tag ref; turning build_on_push on follows the branch", async () => {
    const repo = makeRepo("rules");
    git(repo.dir, "tag", "v1");
    const off = await createDeployment(plane, "push-off", repo.url, { buildOnPush: false });
    const tag = await createDeployment(plane, "push-tag", repo.url, {
      buildOnPush: false,
      ref: "refs/tags/v1",
    });
    const refused = await plane().call({
      method: "PATCH",
      url: `/v2/deployments/${tag.id}`,
      payload: { source_config: { build_on_push: true } },
    });
    assert.equal(refused.statusCode, 400);
    // Even with the flag forced on in storage, a tag is never followed.
    const stored = await getDeployment(plane, tag.id);
    await plane().plane.storage.deployments.save({
      ...stored,
      source_config: { ...stored.source_config, build_on_push: true },
    });
    for (const d of [off, tag]) {
      const [first] = await revisions(plane, d.id);
      assert.ok(first);
      await built(plane, first, head(repo.dir));
    }
    repo.push();
    git(repo.dir, "tag", "-f", "v1");
    assert.equal(await watcher().check({ repoUrls: [repo.url], ref: "refs/heads/main" }), 0);
    assert.equal(await watcher().check({ repoUrls: [repo.url], ref: "refs/tags/v1" }), 0);
    await watcher().check();
    assert.equal((await revisions(plane, off.id)).length, 1);
    assert.equal((await revisions(plane, tag.id)).length, 1);

    const on = await plane().call({
      method: "PATCH",
      url: `/v2/deployments/${off.id}`,
      payload: { source_config: { build_on_push: true } },
    });
    assert.equal(on.statusCode, 200, on.body);
    assert.equal(await watcher().check({ repoUrls: [repo.url], ref: "refs/heads/main" }), 1);
    assert.equal((await revisions(plane, off.id)).length, 2);
  });

  it("one failing repository does not stop the others, and is logged once", async () => {
    const broken = makeRepo("broken");
    const healthy = makeRepo("healthy");
    const b = await createDeployment(plane, "push-broken", broken.url);
    const h = await createDeployment(plane, "push-healthy", healthy.url);
    for (const [d, repo] of [
      [b, broken],
      [h, healthy],
    ] as const) {
      const [first] = await revisions(plane, d.id);
      assert.ok(first);
      await built(plane, first, head(repo.dir));
    }
    fs.rmSync(broken.dir, { recursive: true, force: true });
    healthy.push();
    await watcher().check();
    await watcher().check();
    assert.equal((await revisions(plane, b.id)).length, 1);
    assert.equal((await revisions(plane, h.id)).length, 2);
    const warnings = plane().logs.filter(
      (l) => l.includes(b.id) && l.includes("build_on_push: cannot read main"),
    );
    assert.equal(warnings.length, 1);
  });
});

describe("build_on_push: the timer", () => {
  it("a push is picked up by the periodic check (BERTH_PUSH_POLL_SECS)", async () => {
    const opened = await openPlane({ BERTH_GIT_HOSTS: GIT_HOSTS, BERTH_PUSH_POLL_SECS: "1" });
    const plane = () => opened.plane;
    try {
      const repo = makeRepo("timer");
      const d = await createDeployment(plane, "push-timer", repo.url);
      const [first] = await revisions(plane, d.id);
      assert.ok(first);
      await built(plane, first, head(repo.dir));
      repo.push();
      const all = await waitFor(
        () => revisions(plane, d.id),
        (rs) => rs.length === 2,
        10_000,
      );
      assert.equal(all[1]?.id, first.id);
    } finally {
      await opened.close();
    }
  });
});
