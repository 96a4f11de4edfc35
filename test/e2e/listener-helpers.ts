// Helpers for the listener's end-to-end tests on the real test Kubernetes control plane.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import {
  isSkip,
  type KubeCluster,
  type KubeClusterOptions,
  repoRoot,
  startKubeCluster,
} from "@berth-platform/testkit";

/** Starts the test control plane, or says why this machine cannot (printed, for a skip). */
export async function clusterForTests(
  label: string,
  options: KubeClusterOptions,
): Promise<{ cluster: KubeCluster; skip: false } | { cluster: undefined; skip: string }> {
  const started = await startKubeCluster(options);
  if (!isSkip(started)) return { cluster: started, skip: false };
  console.log(`# skipping ${label}: ${started.skip}`);
  return { cluster: undefined, skip: started.skip };
}

/** A `berth listener` process of the built CLI, with what it printed so far. */
export interface ListenerProcess {
  child: ChildProcess;
  output(): string;
  /** The elector identity it logged at start (for leader-election tests). */
  identity(): string | undefined;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `berth listener` for `listenerId` against a control plane and a kubeconfig (JSON logs). */
export function spawnListener(options: {
  controlPlaneUrl: string;
  listenerId: string;
  key: string;
  kubeconfig: string;
  namespace: string;
  extraArgs?: string[];
}): ListenerProcess {
  const child = spawn(
    process.execPath,
    [
      path.join(repoRoot, "packages/cli/bin/berth.js"),
      "listener",
      "--control-plane",
      options.controlPlaneUrl,
      "--listener-id",
      options.listenerId,
      "--kubeconfig",
      options.kubeconfig,
      "--namespace",
      options.namespace,
      "--poll-interval",
      "0.3",
      "--log-format",
      "json",
      ...(options.extraArgs ?? []),
    ],
    { env: { ...process.env, BERTH_LISTENER_KEY: options.key }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const read = (c: Buffer) => {
    output += c.toString();
  };
  child.stdout?.on("data", read);
  child.stderr?.on("data", read);
  return {
    child,
    output: () => output,
    identity: () => output.match(/"identity":"([^"]+)"/)?.[1],
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill(signal);
      await exited;
    },
  };
}
