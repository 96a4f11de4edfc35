import { v5 as uuidv5 } from "uuid";

/** The namespace the official server derives system assistant ids from (the RFC 4122 URL namespace). */
const SYSTEM_ASSISTANT_NAMESPACE = "6ba7b821-9dad-11d1-80b4-00c04fd430c8";

/** The id of a graph's system assistant: uuid5(graph_id), as the official server computes it. */
export function systemAssistantId(graphId: string): string {
  return uuidv5(graphId, SYSTEM_ASSISTANT_NAMESPACE);
}
