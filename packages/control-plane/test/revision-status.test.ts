// The revision state machine of reference §5.2, as pure code.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canDeploymentTransition, isDeleting } from "../src/domain/deployment-status.js";
import {
  canTransition,
  interruptStatus,
  isInProgress,
  isSupersedable,
  isTerminal,
  planAdvance,
  REVISION_STATUSES,
  type RevisionStatus,
} from "../src/domain/revision-status.js";
import { BadRequestError } from "../src/errors.js";

const TERMINAL: RevisionStatus[] = [
  "CREATE_FAILED",
  "BUILD_FAILED",
  "DEPLOY_FAILED",
  "DEPLOYED",
  "SKIPPED",
  "INTERRUPTED",
];

describe("revision statuses", () => {
  it("has the 13 statuses of the service", () => {
    assert.equal(REVISION_STATUSES.length, 13);
    assert.equal(new Set(REVISION_STATUSES).size, 13);
  });

  it("terminal statuses never move again", () => {
    for (const from of TERMINAL) {
      assert.ok(isTerminal(from), from);
      for (const to of REVISION_STATUSES) assert.equal(canTransition(from, to), false, `${from}→${to}`);
    }
    for (const s of REVISION_STATUSES.filter((s) => !TERMINAL.includes(s)))
      assert.equal(isTerminal(s), false, s);
  });

  it("allows the observed happy paths and nothing that skips a phase", () => {
    const build: RevisionStatus[] = [
      "CREATING",
      "QUEUED",
      "AWAITING_BUILD",
      "BUILDING",
      "AWAITING_DEPLOY",
      "DEPLOYING",
      "DEPLOYED",
    ];
    const image: RevisionStatus[] = ["CREATING", "QUEUED", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"];
    for (const path of [build, image]) {
      for (let i = 1; i < path.length; i += 1) {
        assert.ok(
          canTransition(path[i - 1] as RevisionStatus, path[i] as RevisionStatus),
          `${path[i - 1]}→${path[i]}`,
        );
      }
    }
    assert.equal(canTransition("CREATING", "DEPLOYED"), false);
    assert.equal(canTransition("AWAITING_BUILD", "DEPLOYING"), false);
    assert.equal(canTransition("BUILDING", "DEPLOYED"), false);
    assert.equal(canTransition("DEPLOYING", "SKIPPED"), false);
    assert.ok(canTransition("BUILDING", "BUILD_FAILED"));
    assert.ok(canTransition("DEPLOYING", "DEPLOY_FAILED"));
    assert.ok(canTransition("CREATING", "CREATE_FAILED"));
  });

  it("every non-terminal status can be interrupted; terminal ones are a 400", () => {
    for (const s of REVISION_STATUSES) {
      if (isTerminal(s)) assert.throws(() => interruptStatus(s), BadRequestError);
      else {
        assert.equal(interruptStatus(s), "INTERRUPTED");
        assert.ok(canTransition(s, "INTERRUPTED"), s);
      }
    }
  });

  it("only waiting revisions are superseded; building/deploying ones block", () => {
    for (const s of REVISION_STATUSES) {
      if (isSupersedable(s)) assert.ok(canTransition(s, "SKIPPED"), s);
    }
    assert.deepEqual(REVISION_STATUSES.filter(isInProgress), ["BUILDING", "DEPLOYING"]);
    assert.equal(isSupersedable("BUILDING"), false);
  });
});

describe("planAdvance: how far the control plane moves a revision by itself", () => {
  const base = {
    status: "CREATING" as RevisionStatus,
    hasArtifact: true,
    databaseReady: true,
    blocked: false,
  };

  it("waits in CREATING until the database exists and the source artifact is known", () => {
    assert.equal(planAdvance({ ...base, source: "external_container", databaseReady: false }), null);
    assert.equal(planAdvance({ ...base, source: "internal_source", hasArtifact: false }), null);
  });

  it("image sources wait for a deployer, buildable sources for a builder", () => {
    assert.equal(planAdvance({ ...base, source: "external_container" }), "AWAITING_DEPLOY");
    assert.equal(planAdvance({ ...base, source: "internal_container" }), "AWAITING_DEPLOY");
    assert.equal(planAdvance({ ...base, source: "repo_host" }), "AWAITING_BUILD");
    assert.equal(planAdvance({ ...base, source: "internal_source" }), "AWAITING_BUILD");
  });

  it("queues behind work in progress and leaves the queue when it ends", () => {
    assert.equal(planAdvance({ ...base, source: "repo_host", blocked: true }), "QUEUED");
    assert.equal(planAdvance({ ...base, status: "QUEUED", source: "repo_host", blocked: true }), null);
    assert.equal(planAdvance({ ...base, status: "QUEUED", source: "repo_host" }), "AWAITING_BUILD");
  });

  it("never moves a revision past AWAITING_* (that needs a builder or runtime)", () => {
    for (const status of REVISION_STATUSES.filter((s) => s !== "CREATING" && s !== "QUEUED")) {
      assert.equal(planAdvance({ ...base, status, source: "external_container" }), null, status);
    }
  });
});

describe("deployment statuses", () => {
  it("AWAITING_DATABASE → READY → AWAITING_DELETE → AWAITING_FINAL_DELETE, never back", () => {
    assert.ok(canDeploymentTransition("AWAITING_DATABASE", "READY"));
    assert.ok(canDeploymentTransition("READY", "AWAITING_DELETE"));
    assert.ok(canDeploymentTransition("AWAITING_DELETE", "AWAITING_FINAL_DELETE"));
    assert.equal(canDeploymentTransition("AWAITING_DELETE", "READY"), false);
    assert.equal(canDeploymentTransition("READY", "AWAITING_DATABASE"), false);
    assert.ok(isDeleting("AWAITING_DELETE") && isDeleting("AWAITING_FINAL_DELETE") && !isDeleting("READY"));
  });
});
