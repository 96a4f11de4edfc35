import { spawnSync } from "node:child_process";
import path from "node:path";
import { repoRoot } from "../paths.js";

/** Where the test control plane's programs are, or why they cannot be had on this machine. */
export type KubeBinaries = { ok: true; binDir: string } | { ok: false; reason: string };

const BUILD_SCRIPT = path.join(repoRoot, "packages/testkit/kube/build.sh");

/**
 * Builds (once; cached by `packages/testkit/kube/build.sh` under ~/.cache/berth-kube) and finds
 * kube-apiserver, kube-controller-manager, kubectl, etcd and kwok. `.ci/run` builds them before the
 * tests, so a test only pays for the check. Without the Go toolchain the answer is a reason to
 * skip with (a newcomer's laptop); with it, a failed build throws: a test must not skip what it
 * could have run.
 */
export function kubeBinaries(): KubeBinaries {
  const go = spawnSync("go", ["version"], { encoding: "utf8" });
  if (go.error || go.status !== 0) {
    return {
      ok: false,
      reason: "the Go toolchain is not installed (needed to build the test Kubernetes control plane)",
    };
  }
  const built = spawnSync("bash", [BUILD_SCRIPT], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    env: process.env,
  });
  const binDir = built.stdout?.trim().split("\n").at(-1) ?? "";
  if (built.status === 0 && binDir) return { ok: true, binDir };
  throw new Error(`${BUILD_SCRIPT} failed with exit code ${built.status} (its output is above)`);
}
