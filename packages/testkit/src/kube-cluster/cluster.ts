import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { repoRoot } from "../paths.js";
import { kubeBinaries } from "./binaries.js";
import { kubeconfigYaml, makeCredentials } from "./certs.js";
import { CONTAINER_LOG, containerLogsConfig } from "./container-logs.js";
import { CLUSTER_DIR_PREFIX, OWNER_FILE, PIDS_FILE, reapOrphans } from "./orphans.js";
import { freePort, httpOk, httpsOk, tail, until } from "./probes.js";
import type { KubeCluster, KubeClusterOptions, KubeObjectJson } from "./types.js";

export type { KubeCluster, KubeClusterOptions, KubeObjectJson } from "./types.js";

const KWOK_STAGES = path.join(repoRoot, "packages/testkit/kube/kwok-stages.yaml");
const SERVICE_CIDR = "10.96.0.0/16";
/**
 * Starts a real Kubernetes control plane on loopback ports for a test: etcd, kube-apiserver
 * (RBAC, the default admission plugins, Pod Security admission), kube-controller-manager (the
 * Deployment, ReplicaSet, StatefulSet, garbage-collector, service-account and namespace
 * controllers, among all its defaults), kube-scheduler, and kwok (nodes, volumes that its own
 * stages provision, and pods that reach Running and Ready, or
 * fail as their images' names say: see packages/testkit/kube/kwok-stages.yaml). No container
 * runtime: images are never pulled and no process of a pod runs.
 *
 * Returns `{ skip }` when the programs cannot be built here (no Go toolchain).
 */
export async function startKubeCluster(
  options: KubeClusterOptions = {},
): Promise<KubeCluster | { skip: string }> {
  const binaries = kubeBinaries();
  if (!binaries.ok) return { skip: binaries.reason };
  const bin = (name: string) => path.join(binaries.binDir, name);
  const tmp = process.env.TMPDIR ?? "/tmp";
  reapOrphans(tmp);
  const dir = fs.mkdtempSync(path.join(tmp, CLUSTER_DIR_PREFIX));
  fs.writeFileSync(path.join(dir, OWNER_FILE), String(process.pid));
  const children: Array<{ name: string; child: ChildProcess; log: string }> = [];
  const logOf = (name: string) => path.join(dir, `${name}.log`);
  const start = (name: string, args: string[]) => {
    const fd = fs.openSync(logOf(name), "a");
    const child = spawn(bin(name), args, { stdio: ["ignore", fd, fd], cwd: dir });
    fs.closeSync(fd);
    children.push({ name, child, log: logOf(name) });
    if (child.pid) fs.appendFileSync(path.join(dir, PIDS_FILE), `${child.pid}\n`);
    return child;
  };
  const logs = (lines = 15) =>
    children.map((c) => `--- ${c.name} (exit ${c.child.exitCode ?? "-"}):\n${tail(c.log, lines)}`).join("\n");
  // A test process that ends must not leave the components running: they hold ports, files and
  // CPU. On exit and on SIGTERM/SIGINT (a runner's timeout) they are killed here; after a SIGKILL
  // the next start reaps them (reapOrphans).
  const killAll = () => {
    for (const { child } of children) if (child.exitCode === null) child.kill("SIGKILL");
  };
  const onSignal = (signal: NodeJS.Signals) => {
    killAll();
    fs.rmSync(dir, { recursive: true, force: true });
    process.removeListener("SIGTERM", onSignal);
    process.removeListener("SIGINT", onSignal);
    process.kill(process.pid, signal);
  };
  process.once("exit", killAll);
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);

  const stop = async () => {
    process.removeListener("exit", killAll);
    process.removeListener("SIGTERM", onSignal);
    process.removeListener("SIGINT", onSignal);
    for (const { child } of [...children].reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    if (!options.keepDir) fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    const creds = await makeCredentials(dir);
    const ca = fs.readFileSync(creds.caCert);
    const [etcdClient, etcdPeer, apiPort, kubeletPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const etcdUrl = `http://127.0.0.1:${etcdClient}`;
    const peerUrl = `http://127.0.0.1:${etcdPeer}`;
    start("etcd", [
      "--name=default",
      `--data-dir=${path.join(dir, "etcd")}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=default=${peerUrl}`,
      // Test data: losing it on a power cut is fine, and fsync on a loaded disk is slow.
      "--unsafe-no-fsync",
      "--log-level=warn",
    ]);
    await until("etcd answers /health", () => httpOk(`${etcdUrl}/health`), 60_000, logs);

    const server = `https://127.0.0.1:${apiPort}`;
    start("kube-apiserver", [
      `--etcd-servers=${etcdUrl}`,
      "--bind-address=127.0.0.1",
      "--advertise-address=127.0.0.1",
      `--secure-port=${apiPort}`,
      `--cert-dir=${path.join(dir, "apiserver-certs")}`,
      `--tls-cert-file=${creds.serverCert}`,
      `--tls-private-key-file=${creds.serverKey}`,
      `--client-ca-file=${creds.caCert}`,
      `--token-auth-file=${creds.tokenFile}`,
      "--authorization-mode=RBAC",
      "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
      `--service-account-key-file=${creds.serviceAccountPub}`,
      `--service-account-signing-key-file=${creds.serviceAccountKey}`,
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      // The `kubernetes` Service's endpoints would name a loopback address, which is refused.
      "--endpoint-reconciler-type=none",
      // Logs are fetched from the node's kubelet endpoint: kwok's server on 127.0.0.1.
      "--kubelet-preferred-address-types=InternalIP",
      "--profiling=false",
      "--v=1",
    ]);
    await until(
      "kube-apiserver answers /readyz",
      () => httpsOk(`${server}/readyz`, ca, creds.token),
      120_000,
      logs,
    );
    const kubeconfig = path.join(dir, "admin.kubeconfig");
    fs.writeFileSync(kubeconfig, kubeconfigYaml(server, creds.caCert, creds.token), { mode: 0o600 });

    start("kube-controller-manager", [
      `--kubeconfig=${kubeconfig}`,
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      "--leader-elect=false",
      "--secure-port=0",
      `--service-account-private-key-file=${creds.serviceAccountKey}`,
      `--root-ca-file=${creds.caCert}`,
      "--use-service-account-credentials=false",
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      "--v=1",
    ]);
    start("kube-scheduler", [
      `--kubeconfig=${kubeconfig}`,
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      "--leader-elect=false",
      "--secure-port=0",
      "--v=1",
    ]);
    const volumeStages = path.join(binaries.binDir, "kwok-volume");
    const kwokStages = [
      KWOK_STAGES,
      ...["pvc-provision", "pv-bind", "pv-delete", "pvc-delete"].map((s) =>
        path.join(volumeStages, `${s}.yaml`),
      ),
    ];
    const containerLogs = containerLogsConfig(dir, options.containerLog ?? CONTAINER_LOG);
    start("kwok", [
      `--kubeconfig=${kubeconfig}`,
      ...[...kwokStages, containerLogs].map((file) => `--config=${file}`),
      "--manage-all-nodes=true",
      "--cidr=10.244.0.0/16",
      // kwok plays the kubelet's server too (the API server proxies `kubectl logs` to it).
      "--node-ip=127.0.0.1",
      `--node-port=${kubeletPort}`,
      `--server-address=127.0.0.1:${kubeletPort}`,
      `--tls-cert-file=${creds.serverCert}`,
      `--tls-private-key-file=${creds.serverKey}`,
    ]);

    const kubectl: KubeCluster["kubectl"] = async (args, opts = {}) => {
      const child = execFile(
        bin("kubectl"),
        [`--kubeconfig=${opts.kubeconfig ?? kubeconfig}`, ...args],
        { maxBuffer: 64 * 1024 * 1024 },
        () => undefined,
      );
      let stdout = "";
      let stderr = "";
      child.stdout?.on("data", (c: Buffer) => (stdout += c.toString()));
      child.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
      if (opts.input !== undefined) child.stdin?.end(opts.input);
      else child.stdin?.end();
      const code = await new Promise<number>((r) => child.once("close", (c) => r(c ?? 1)));
      return { code, stdout, stderr };
    };
    const get: KubeCluster["get"] = async (kind, namespace, name) => {
      const ns = namespace ? ["-n", namespace] : [];
      const out = await kubectl(["get", kind, name, ...ns, "-o", "json", "--ignore-not-found"]);
      if (out.code !== 0) throw new Error(`kubectl get ${kind} ${name}: ${out.stderr}`);
      return out.stdout.trim() ? (JSON.parse(out.stdout) as KubeObjectJson) : undefined;
    };
    const list: KubeCluster["list"] = async (kind, namespace, selector) => {
      const ns = namespace ? ["-n", namespace] : ["--all-namespaces"];
      const sel = selector ? ["-l", selector] : [];
      const out = await kubectl(["get", kind, ...ns, ...sel, "-o", "json"]);
      if (out.code !== 0) throw new Error(`kubectl get ${kind}: ${out.stderr}`);
      return (JSON.parse(out.stdout) as { items: KubeObjectJson[] }).items;
    };
    const apply: KubeCluster["apply"] = async (manifest) => {
      const out = await kubectl(["apply", "--server-side", "--field-manager=berth-test", "-f", "-"], {
        input: manifest,
      });
      if (out.code !== 0) throw new Error(`kubectl apply: ${out.stderr || out.stdout}`);
    };

    const nodes = Array.from({ length: options.nodes ?? 1 }, (_, i) => ({
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name: `kwok-node-${i}`,
        labels: { "kubernetes.io/hostname": `kwok-node-${i}`, "kubernetes.io/os": "linux", type: "kwok" },
        annotations: { "kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0" },
      },
    }));
    const namespaces = (options.namespaces ?? []).map((name) => ({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: {
        name,
        labels: options.podSecurity
          ? {
              "pod-security.kubernetes.io/enforce": options.podSecurity,
              "pod-security.kubernetes.io/enforce-version": "latest",
            }
          : {},
      },
    }));
    await apply(JSON.stringify({ apiVersion: "v1", kind: "List", items: [...nodes, ...namespaces] }));
    // kwok's default StorageClass (claims are provisioned and bound by its volume stages), made
    // expandable so a test can grow a claim as a CSI driver with resize support allows.
    await apply(fs.readFileSync(path.join(volumeStages, "storage-class.yaml"), "utf8"));
    const expandable = await kubectl([
      "patch",
      "storageclass",
      "kwok-volume",
      "-p",
      '{"allowVolumeExpansion":true}',
    ]);
    if (expandable.code !== 0) throw new Error(`kubectl patch storageclass: ${expandable.stderr}`);
    await until(
      "the kwok nodes are Ready",
      async () => {
        const ready = (await list("nodes", undefined)).filter((n) =>
          ((n.status?.conditions ?? []) as Array<{ type: string; status: string }>).some(
            (c) => c.type === "Ready" && c.status === "True",
          ),
        );
        return ready.length === nodes.length;
      },
      120_000,
      logs,
    );
    // Pods need their namespace's `default` ServiceAccount, which the controller manager makes.
    for (const ns of options.namespaces ?? []) {
      await until(
        `the ServiceAccount default in ${ns}`,
        async () => (await get("serviceaccount", ns, "default")) !== undefined,
        60_000,
        logs,
      );
    }
    return {
      server,
      kubeconfig,
      token: creds.token,
      binDir: binaries.binDir,
      dir,
      kubectl,
      get,
      list,
      apply,
      writeKubeconfig: (token, file) => {
        fs.writeFileSync(file, kubeconfigYaml(server, creds.caCert, token, "other"), { mode: 0o600 });
        return file;
      },
      logs,
      stop,
    };
  } catch (error) {
    const detail = logs(30);
    await stop();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${detail}`);
  }
}

/** Whether `startKubeCluster` answered a reason to skip rather than a cluster. */
export function isSkip(value: KubeCluster | { skip: string }): value is { skip: string } {
  return "skip" in value;
}
