import path from "node:path";

/** Where the local runtime keeps one deployment's files (all under `<dataDir>/deployments/<id>`). */
export interface DeploymentLayout {
  root: string;
  /** The agent server's data directory: threads, runs, checkpoints (kept across revisions). */
  data: string;
  /** Finished builds, one directory per build key (revisions with equal inputs share one). */
  builds: string;
  /** Agent server output, one file per revision. */
  logs: string;
  /** What runs now (revision, pid, port), so a restarted control plane can adopt it. */
  stateFile: string;
}

/** The layout of deployment `id` under the runtime's deployments directory. */
export function deploymentLayout(deploymentsDir: string, id: string): DeploymentLayout {
  const root = path.join(deploymentsDir, id);
  return {
    root,
    data: path.join(root, "data"),
    builds: path.join(root, "builds"),
    logs: path.join(root, "logs"),
    stateFile: path.join(root, "runtime.json"),
  };
}

/** The build directory of `key` and the file that marks it complete. */
export function buildPaths(
  layout: DeploymentLayout,
  key: string,
): { dir: string; marker: string; source: string } {
  const dir = path.join(layout.builds, key);
  return { dir, marker: path.join(dir, "build.json"), source: path.join(dir, "src") };
}
