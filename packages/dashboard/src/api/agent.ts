// The agent API of a deployment, through the control plane's /agents/<id> proxy (same origin),
// driven by the official @langchain/langgraph-sdk client.
import { Client } from "@langchain/langgraph-sdk/client";
import type { ControlPlaneClient } from "./control-plane.js";

/** The proxy path of a deployment's agent server on this control plane. */
export function agentBase(deploymentId: string): string {
  return `${location.origin}/agents/${encodeURIComponent(deploymentId)}`;
}

/** An SDK client for a deployment's agent server, with the session's key and workspace. */
export function agentClient(control: ControlPlaneClient, deploymentId: string): Client {
  const { "X-Api-Key": apiKey, ...rest } = control.headers();
  return new Client({ apiUrl: agentBase(deploymentId), apiKey: apiKey ?? null, defaultHeaders: rest });
}

/** The assistant a page starts with: the `agent` graph's when there is one (the examples'), else the first. */
export function preferredAssistant<T extends { graph_id: string }>(
  assistants: readonly T[] | undefined,
): T | undefined {
  return assistants?.find((a) => a.graph_id === "agent") ?? assistants?.[0];
}

/** GET of an agent server path that is not in the SDK (e.g. /metrics), as text. */
export async function agentText(
  control: ControlPlaneClient,
  deploymentId: string,
  path: string,
): Promise<string> {
  const res = await fetch(`${agentBase(deploymentId)}${path}`, { headers: control.headers() });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.text();
}
