import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { computeThreadStatus } from "../src/domain/thread-status.js";
import { decideMultitask } from "../src/queue/multitask.js";

const running = { run_id: "r1", status: "running" as const };
const pending = { run_id: "r2", status: "pending" as const };

describe("decideMultitask", () => {
  it("an idle thread accepts every strategy and displaces nothing", () => {
    for (const strategy of ["reject", "enqueue", "interrupt", "rollback"] as const) {
      assert.deepEqual(decideMultitask(strategy, []), { kind: "accept", displace: [] });
    }
  });
  it("reject refuses while busy; enqueue waits its turn", () => {
    assert.deepEqual(decideMultitask("reject", [running]), { kind: "reject" });
    assert.deepEqual(decideMultitask("enqueue", [running, pending]), { kind: "accept", displace: [] });
  });
  it("interrupt and rollback displace every active run with their action", () => {
    for (const action of ["interrupt", "rollback"] as const) {
      assert.deepEqual(decideMultitask(action, [running, pending]), {
        kind: "accept",
        displace: [
          { run_id: "r1", status: "running", action },
          { run_id: "r2", status: "pending", action },
        ],
      });
    }
  });
});

describe("computeThreadStatus", () => {
  it("follows error > interrupted > busy > idle", () => {
    assert.equal(computeThreadStatus({ runErrored: true, hasNext: true, otherActiveRuns: 2 }), "error");
    assert.equal(
      computeThreadStatus({ runErrored: false, hasNext: true, otherActiveRuns: 2 }),
      "interrupted",
    );
    assert.equal(computeThreadStatus({ runErrored: false, hasNext: false, otherActiveRuns: 1 }), "busy");
    assert.equal(computeThreadStatus({ runErrored: false, hasNext: false, otherActiveRuns: 0 }), "idle");
  });
});
