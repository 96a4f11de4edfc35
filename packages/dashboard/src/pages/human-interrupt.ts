// The standard human-interrupt shape (LangGraph's HumanInterrupt, as Agent Inbox and Studio read
// it): `{action_request: {action, args}, config: {allow_accept, allow_edit, allow_respond,
// allow_ignore}, description?}`, interrupted alone or as a list of one; answered with a
// HumanResponse `{type: "accept" | "edit" | "response" | "ignore", args}` in the same form.

/** The action a graph asks a person about. */
export interface ActionRequest {
  action: string;
  args: Record<string, unknown>;
}

/** What the person may do with it. */
export interface HumanInterruptConfig {
  allow_accept: boolean;
  allow_edit: boolean;
  allow_respond: boolean;
  allow_ignore: boolean;
}

/** One standard human interrupt. */
export interface HumanRequest {
  action_request: ActionRequest;
  config: HumanInterruptConfig;
  description?: string;
}

/** The person's answer. */
export type HumanResponse =
  | { type: "accept"; args: null }
  | { type: "ignore"; args: null }
  | { type: "response"; args: string }
  | { type: "edit"; args: ActionRequest };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isHumanRequest(value: unknown): value is HumanRequest {
  if (!isRecord(value) || !isRecord(value.action_request) || !isRecord(value.config)) return false;
  const { action, args } = value.action_request;
  const flags = ["allow_accept", "allow_edit", "allow_respond", "allow_ignore"] as const;
  return (
    typeof action === "string" &&
    isRecord(args) &&
    flags.every((f) => typeof (value.config as Record<string, unknown>)[f] === "boolean")
  );
}

/**
 * The standard request in an interrupt's value and whether it came as a list (the answer goes back
 * the same way), or null for any other value (the chat then offers a JSON resume form).
 */
export function humanRequestOf(value: unknown): { request: HumanRequest; listed: boolean } | null {
  if (Array.isArray(value)) {
    return value.length === 1 && isHumanRequest(value[0]) ? { request: value[0], listed: true } : null;
  }
  return isHumanRequest(value) ? { request: value, listed: false } : null;
}

/** The resume value for an answer: a list of one when the request came as one. */
export function humanResume(listed: boolean, response: HumanResponse): unknown {
  return listed ? [response] : response;
}
