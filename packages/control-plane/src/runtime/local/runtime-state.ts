import fs from "node:fs";
import type { DeploymentLayout } from "./layout.js";

/** What runs now, persisted so that a restarted control plane can adopt it. */
export interface RuntimeState {
  revision_id: string;
  pid: number;
  port: number;
  /** The agent server's credential (this file is the control plane's only: mode 0600). */
  token?: string;
  /** Started in the shared data-directory mode (Redis); absent in files of older versions. */
  shared?: boolean;
}

/** The deployment's recorded state, if any. */
export function readState(layout: DeploymentLayout): RuntimeState | undefined {
  try {
    return JSON.parse(fs.readFileSync(layout.stateFile, "utf8")) as RuntimeState;
  } catch {
    return undefined;
  }
}

/** Records the deployment's state (replaced whole; readable by the control plane only). */
export function writeState(layout: DeploymentLayout, state: RuntimeState): void {
  const temp = `${layout.stateFile}.tmp`;
  fs.writeFileSync(temp, JSON.stringify(state), { mode: 0o600 });
  fs.renameSync(temp, layout.stateFile);
}
