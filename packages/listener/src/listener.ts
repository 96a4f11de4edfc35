import type { LeaderElector } from "./leader-election.js";
import { Reconciler } from "./reconciler.js";
import { sleep } from "./sleep.js";
import type { ClusterPort, ControlPlanePort, ListenerLogger, RenderOptions } from "./types.js";

/** A running listener loop. */
export interface RunningListener {
  /** Stops after the pass under way. */
  stop(): Promise<void>;
}

/** What the loop is made of (the CLI wires the real adapters; tests may pass others). */
export interface ListenerParts {
  listenerId: string;
  namespaces: readonly string[];
  controlPlane: ControlPlanePort;
  cluster: ClusterPort;
  logger: ListenerLogger;
  /** Poll interval; null: the control plane's. */
  pollMs: number | null;
  /** With several replicas of one listener: only the holder of the Lease polls and applies. */
  leader?: Pick<LeaderElector, "leading" | "start" | "stop">;
  /** Images and pull secrets of the in-cluster Postgres and Redis (default: the official images). */
  render?: RenderOptions;
}

/**
 * Polls the control plane and reconciles the cluster, pass after pass. A failed poll (control
 * plane unreachable) is logged and retried with a growing pause, up to a minute; the cluster is
 * left as it is meanwhile. With a leader elector, a listener that does not hold the lease stands by
 * (neither polls nor touches the cluster) until it does.
 */
export function startListener(parts: ListenerParts): RunningListener {
  const reconciler = new Reconciler(
    parts.cluster,
    parts.controlPlane,
    {
      listenerId: parts.listenerId,
      namespaces: parts.namespaces,
      ...(parts.render ? { render: parts.render } : {}),
    },
    parts.logger,
  );
  const controller = new AbortController();
  parts.leader?.start();
  const loop = (async () => {
    let failures = 0;
    let interval = parts.pollMs ?? 5000;
    while (!controller.signal.aborted) {
      if (parts.leader && !parts.leader.leading) {
        await sleep(Math.min(interval, 1000), controller.signal);
        continue;
      }
      try {
        const state = await parts.controlPlane.desiredState();
        interval = parts.pollMs ?? state.poll_interval_seconds * 1000;
        if (failures > 0) parts.logger.info({ after: failures }, "control plane reachable again");
        failures = 0;
        await reconciler.pass(state);
      } catch (error) {
        failures++;
        parts.logger.warn(
          { err: error instanceof Error ? error.message : String(error), failures },
          "poll failed; retrying",
        );
      }
      const pause = failures > 0 ? Math.min(60_000, interval * 2 ** Math.min(failures - 1, 6)) : interval;
      await sleep(pause, controller.signal);
    }
  })();
  return {
    async stop() {
      controller.abort();
      await loop;
      await parts.leader?.stop();
    },
  };
}
