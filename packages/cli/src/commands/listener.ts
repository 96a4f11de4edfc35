import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
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
  postgresImage?: string;
  redisImage?: string;
  imagePullSecret?: string[];
  logFormat?: string;
  leaderElect?: boolean;
  leaseNamespace?: string;
  leaseDuration?: string;
}

/** The namespace of the pod this runs in, from its service account (undefined outside a pod). */
function podNamespace(): string | undefined {
  try {
    return (
      fs.readFileSync("/var/run/secrets/kubernetes.io/serviceaccount/namespace", "utf8").trim() || undefined
    );
  } catch {
    return undefined;
  }
}

/** `berth listener`: the Kubernetes data plane, run inside (or next to) the user's cluster. */
export function registerListenerCommand(program: Command): void {
  const command = program
    .command("listener")
    // `listener install` has options of the same names: they belong to whichever comes first.
    .enablePositionalOptions()
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
    .option(
      "--no-leader-elect",
      "act without a Lease (only for a single replica; by default replicas of one listener elect a leader)",
    )
    .option(
      "--lease-namespace <ns>",
      "namespace of the leader-election Lease (default: the pod's namespace, else the first --namespace, else default)",
    )
    .option("--lease-duration <seconds>", "how long a leader's Lease holds without renewal (default 15)")
    .option(
      "--postgres-image <image>",
      "image of each deployment's PostgreSQL, run as UID 999 (default postgres:16, or BERTH_POSTGRES_IMAGE)",
    )
    .option(
      "--redis-image <image>",
      "image of each deployment's Redis, run as UID 999 (default redis:7, or BERTH_REDIS_IMAGE)",
    )
    .option(
      "--image-pull-secret <name>",
      "pull secret for the PostgreSQL and Redis images; repeat or comma-separate (or BERTH_IMAGE_PULL_SECRETS)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .addOption(logFormatOption())
    .addHelpText(
      "after",
      `
The listener's key is read from BERTH_LISTENER_KEY (never a flag: flags show in process lists).
Creating a listener (POST /v2/listeners) returns its key once; POST /v2/listeners/{id}/key makes
a new one.

Each revision is rendered into Kubernetes objects and applied with server-side apply (field
manager "berth"); objects a new revision no longer renders are pruned, and a deleted deployment's
objects are deleted. Object names come from the deployment's id; an object of that name that
another deployment (or no Berth deployment) owns is never taken over: the revision fails with the
reason. A revision is DEPLOYED once its API Deployment's new ReplicaSet is available;
an image pull error, a crash loop or the progress deadline end it DEPLOY_FAILED (the pod's reason
and last log lines go to the deploy log) and the previous revision is applied again.

Several replicas of one listener elect a leader through a coordination.k8s.io Lease
(berth-listener-<listener id>): only the leader polls and applies; a standby takes over when the
leader stops renewing (within the lease duration) or at once when it shuts down cleanly.
\`berth listener install\` prints the manifests to run it in a cluster.`,
    )
    .action(async (flags: ListenerFlags) => {
      const [listenerModule, { makeLogger }] = await Promise.all([
        import("@berth-platform/listener"),
        import("../logger.js"),
      ]);
      const {
        ClientNodeCluster,
        ClientNodeLease,
        ControlPlaneClient,
        DEFAULT_TIMINGS,
        LABELS,
        LeaderElector,
        loadKubeConfig,
        parseListenerConfig,
        startListener,
      } = listenerModule;
      const config = parseListenerConfig({ flags, env: process.env, podNamespace: podNamespace() });
      const logger = makeLogger(
        process.env.BERTH_LOG_LEVEL ?? "info",
        resolveLogFormat(flags.logFormat, process.stdout.isTTY === true),
      );
      const log: ListenerLogger = {
        info: (fields, message) => logger.info(fields, message),
        warn: (fields, message) => logger.warn(fields, message),
        error: (fields, message) => logger.error(fields, message),
      };
      const election = config.leaderElection;
      const leader = election
        ? new LeaderElector(
            new ClientNodeLease(loadKubeConfig(config.kube), election.namespace, election.name, {
              [LABELS.managedBy]: "berth",
              [LABELS.listener]: config.listenerId,
            }),
            `${process.env.POD_NAME ?? os.hostname()}_${randomUUID().slice(0, 8)}`,
            {
              ...DEFAULT_TIMINGS,
              leaseDurationMs: election.leaseDurationMs,
              // client-go's proportions: renew deadline 2/3 of the lease, retry 2/15 of it.
              renewDeadlineMs: Math.round((election.leaseDurationMs * 2) / 3),
              retryMs: Math.max(500, Math.round((election.leaseDurationMs * 2) / 15)),
            },
            log,
          )
        : undefined;
      const listener = startListener({
        listenerId: config.listenerId,
        namespaces: config.namespaces,
        controlPlane: new ControlPlaneClient(config.controlPlaneUrl, config.listenerId, config.key),
        cluster: new ClientNodeCluster(config.kube),
        logger: log,
        pollMs: config.pollMs,
        ...(leader ? { leader } : {}),
        render: config.render,
      });
      logger.info(
        {
          controlPlane: config.controlPlaneUrl,
          listenerId: config.listenerId,
          namespaces: config.namespaces.length ? config.namespaces : "any",
          kube: config.kube.kind,
          lease: election ? `${election.namespace}/${election.name}` : "none",
          identity: leader?.identity,
        },
        "berth listener started",
      );
      await closeOnSignal({ close: () => listener.stop() }, "");
    });
  registerInstallCommand(command);
}

interface InstallFlags {
  listenerId?: string;
  controlPlane?: string;
  namespace?: string[];
  listenerNamespace: string;
  image?: string;
  replicas: string;
  keySecret: string;
  imagePullSecret?: string[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** `berth listener install`: prints the manifests that run the listener in a cluster. */
function registerInstallCommand(listener: Command): void {
  const repeat = (value: string, previous: string[] = []) => [
    ...previous,
    ...value.split(",").filter(Boolean),
  ];
  listener
    .command("install")
    .description("Print the Kubernetes manifests that run this listener in a cluster (least privilege).")
    .option("--listener-id <id>", "the listener's id from POST /v2/listeners (or BERTH_LISTENER_ID)")
    .option(
      "--control-plane <url>",
      "the control plane's URL as the cluster reaches it (or BERTH_CONTROL_PLANE_URL)",
    )
    .option(
      "-n, --namespace <ns>",
      "a namespace its deployments go to (repeat or comma-separate; required)",
      repeat,
    )
    .option("--listener-namespace <ns>", "where the listener itself runs", "berth-system")
    .option("--image <image>", "an image with the berth CLI on its PATH (required)")
    .option("--replicas <n>", "replicas (more than one stand by through a Lease)", "2")
    .option(
      "--key-secret <name>",
      "the Secret holding BERTH_LISTENER_KEY in the listener's namespace",
      "berth-listener-key",
    )
    .option("--image-pull-secret <name>", "an image pull secret for the listener's pods (repeatable)", repeat)
    .addHelpText(
      "after",
      `
Apply the output with \`kubectl apply -f -\`. The listener's key is not printed: create its Secret
first, e.g.
  kubectl -n berth-system create secret generic berth-listener-key --from-literal=BERTH_LISTENER_KEY=<key>
The listener gets a Role in each --namespace (the kinds it renders, pods and their logs read-only)
and a Role for its own Lease; nothing cluster-wide. Check with
  kubectl auth can-i --list -n <namespace> --as=system:serviceaccount:berth-system:berth-listener`,
    )
    .action(async (flags: InstallFlags) => {
      const fail = (message: string) => {
        process.stderr.write(`berth listener install: ${message}\n`);
        process.exitCode = 2;
      };
      const listenerId = (flags.listenerId ?? process.env.BERTH_LISTENER_ID ?? "").toLowerCase();
      const controlPlaneUrl = flags.controlPlane ?? process.env.BERTH_CONTROL_PLANE_URL ?? "";
      const namespaces = [...new Set(flags.namespace ?? [])];
      const replicas = Number(flags.replicas);
      if (!UUID.test(listenerId)) return fail("--listener-id must be the listener's id (a UUID).");
      if (!/^https?:\/\//.test(controlPlaneUrl))
        return fail("--control-plane must be the control plane's http(s) URL.");
      if (namespaces.length === 0) return fail("name at least one --namespace for its deployments.");
      for (const ns of [...namespaces, flags.listenerNamespace]) {
        if (!DNS_LABEL.test(ns) || ns.length > 63) return fail(`invalid namespace: ${ns}`);
      }
      if (!flags.image) return fail("--image is required (an image with the berth CLI on its PATH).");
      if (!Number.isInteger(replicas) || replicas < 1 || replicas > 10)
        return fail("--replicas must be 1 to 10.");
      const { listenerInstallYaml } = await import("@berth-platform/listener");
      const yaml = listenerInstallYaml({
        listenerId,
        controlPlaneUrl: controlPlaneUrl.replace(/\/+$/, ""),
        namespaces,
        namespace: flags.listenerNamespace,
        image: flags.image,
        replicas,
        keySecret: flags.keySecret,
        imagePullSecrets: flags.imagePullSecret ?? [],
      });
      process.stdout.write(
        `# berth listener ${listenerId}: apply with kubectl apply -f - (create the Secret ${flags.keySecret} first)\n`,
      );
      process.stdout.write(yaml);
    });
}
