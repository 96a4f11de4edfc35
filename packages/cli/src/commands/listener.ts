import type { ListenerLogger } from "@berth-platform/listener";
import type { Command } from "commander";
import { logFormatOption, resolveLogFormat } from "../log-format.js";
import { closeOnSignal } from "../shutdown.js";

interface ListenerFlags {
  controlPlane?: string;
  listenerId?: string;
  namespace?: string[];
  kubeconfig?: string;
  inCluster?: boolean;
  pollInterval?: string;
  logFormat?: string;
}

/** `berth listener`: the Kubernetes data plane, run inside (or next to) the user's cluster. */
export function registerListenerCommand(program: Command): void {
  program
    .command("listener")
    .description(
      "Run the Kubernetes data plane: poll the control plane and apply its external_container deployments to a cluster.",
    )
    .option("--control-plane <url>", "the control plane's URL (or BERTH_CONTROL_PLANE_URL)")
    .option("--listener-id <id>", "the listener's id from POST /v2/listeners (or BERTH_LISTENER_ID)")
    .option(
      "-n, --namespace <ns>",
      "namespace to act in; repeat or comma-separate for several (default: any, or BERTH_LISTENER_NAMESPACES)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      "--kubeconfig <file>",
      "kubeconfig to use (default: in-cluster config inside a pod, else KUBECONFIG / ~/.kube/config)",
    )
    .option("--in-cluster", "use the pod's service account (in-cluster config)")
    .option("--poll-interval <seconds>", "how often to poll (default: what the control plane asks for)")
    .addOption(logFormatOption())
    .addHelpText(
      "after",
      `
The listener's key is read from BERTH_LISTENER_KEY (never a flag: flags show in process lists).
Creating a listener (POST /v2/listeners) returns its key once; POST /v2/listeners/{id}/key makes
a new one.

Each revision is rendered into Kubernetes objects and applied with server-side apply (field
manager "berth"); objects a new revision no longer renders are pruned, and a deleted deployment's
objects are deleted. A revision is DEPLOYED once its API Deployment's new ReplicaSet is available;
an image pull error, a crash loop or the progress deadline end it DEPLOY_FAILED (the pod's reason
and last log lines go to the deploy log) and the previous revision is applied again.`,
    )
    .action(async (flags: ListenerFlags) => {
      const [{ ClientNodeCluster, ControlPlaneClient, parseListenerConfig, startListener }, { makeLogger }] =
        await Promise.all([import("@berth-platform/listener"), import("../logger.js")]);
      const config = parseListenerConfig({ flags, env: process.env });
      const logger = makeLogger(
        process.env.BERTH_LOG_LEVEL ?? "info",
        resolveLogFormat(flags.logFormat, process.stdout.isTTY === true),
      );
      const log: ListenerLogger = {
        info: (fields, message) => logger.info(fields, message),
        warn: (fields, message) => logger.warn(fields, message),
        error: (fields, message) => logger.error(fields, message),
      };
      const listener = startListener({
        listenerId: config.listenerId,
        namespaces: config.namespaces,
        controlPlane: new ControlPlaneClient(config.controlPlaneUrl, config.listenerId, config.key),
        cluster: new ClientNodeCluster(config.kube),
        logger: log,
        pollMs: config.pollMs,
      });
      logger.info(
        {
          controlPlane: config.controlPlaneUrl,
          listenerId: config.listenerId,
          namespaces: config.namespaces.length ? config.namespaces : "any",
          kube: config.kube.kind,
        },
        "berth listener started",
      );
      await closeOnSignal({ close: () => listener.stop() }, "");
    });
}
