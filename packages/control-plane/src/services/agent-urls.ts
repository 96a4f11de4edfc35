/**
 * The stable URL of each deployment's agent: `<base>/agents/<deployment_id>`, served by the control
 * plane's proxy. The base is the configured public URL, else the address the control plane listens on.
 */
export class AgentUrls {
  /** Where the control plane itself is reached from this machine (agents send traces there). */
  public internal: string;

  constructor(public base: string) {
    this.internal = base;
  }

  /** The agent URL of a deployment (its `custom_url`). */
  of(deploymentId: string): string {
    return `${this.base.replace(/\/+$/, "")}/agents/${deploymentId}`;
  }
}
