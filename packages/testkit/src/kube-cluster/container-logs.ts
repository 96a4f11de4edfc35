// What kwok serves for `kubectl logs` in the test cluster (it plays the kubelet's server; no
// container runs, so every container "printed" the text a test chooses).
import fs from "node:fs";
import path from "node:path";

export const CONTAINER_LOG = "kwok: no container runs in this test cluster\n";

/** kwok's ClusterLogs for every pod: `text` as each container's current and previous output. */
export function containerLogsConfig(dir: string, text: string): string {
  const logFile = path.join(dir, "container.log");
  // The CRI log format a kubelet reads: `<time> <stream> F <line>` (F: a full line).
  const at = new Date().toISOString();
  const lines = text.split("\n").filter((line, i, all) => line !== "" || i < all.length - 1);
  fs.writeFileSync(logFile, lines.map((line) => `${at} stderr F ${line}\n`).join(""));
  const config = path.join(dir, "kwok-logs.yaml");
  fs.writeFileSync(
    config,
    JSON.stringify({
      apiVersion: "kwok.x-k8s.io/v1alpha1",
      kind: "ClusterLogs",
      metadata: { name: "container-logs" },
      spec: { logs: [{ containers: [], logsFile: logFile, previousLogsFile: logFile }] },
    }),
  );
  return config;
}
