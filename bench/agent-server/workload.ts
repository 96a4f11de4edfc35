import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export type GraphId = "echo" | "agent";

export const GRAPH_IDS: readonly GraphId[] = ["echo", "agent"];

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const BENCH_DIR = path.join(REPO_ROOT, "bench", "agent-server");
export const EXAMPLE_DIR = path.join(REPO_ROOT, "examples", "react-agent");
export const EXAMPLE_GRAPH_CONFIG = path.join(EXAMPLE_DIR, "graph.json");

/**
 * An arithmetic question makes the scripted model call the calculator tool, so one agent run is
 * the full ReAct round trip (ai tool call → tool → ai); the echo graph just answers it back.
 */
export const QUESTION = "What is (6 + 1) * 6?";

// A type alias, not an interface: the SDK wants an object type with an implicit index signature.
export type RunInput = {
  messages: Array<{ role: "user"; content: string }>;
};

/** The same input for every server and for the in-process floor. */
export function runInput(): RunInput {
  return { messages: [{ role: "user", content: QUESTION }] };
}

/** Where graph.json says a graph lives: module path (absolute) and export name. */
export function graphEntry(graphId: GraphId): { modulePath: string; exportName: string } {
  const config = JSON.parse(fs.readFileSync(EXAMPLE_GRAPH_CONFIG, "utf8")) as {
    graphs?: Record<string, unknown>;
  };
  const entry = config.graphs?.[graphId];
  if (typeof entry !== "string") throw new Error(`${EXAMPLE_GRAPH_CONFIG} has no graph "${graphId}"`);
  const colon = entry.lastIndexOf(":");
  const file = colon > 0 ? entry.slice(0, colon) : entry;
  const exportName = colon > 0 ? entry.slice(colon + 1) : "default";
  return { modulePath: path.resolve(EXAMPLE_DIR, file), exportName };
}

/** What the last message of a finished run says: the echoed question, or the calculator's result. */
export function expectedAnswer(graphId: GraphId): string {
  return graphId === "echo" ? QUESTION : "42";
}

/**
 * Throws unless `values` (a thread's state over HTTP, or `graph.invoke`'s result) ends with the
 * expected answer: a run that failed quietly must not count as a fast run.
 */
export function checkAnswer(graphId: GraphId, values: unknown): void {
  const messages =
    typeof values === "object" && values !== null ? Reflect.get(values, "messages") : undefined;
  const last: unknown = Array.isArray(messages) ? messages.at(-1) : undefined;
  const content = typeof last === "object" && last !== null ? Reflect.get(last, "content") : undefined;
  if (typeof content !== "string" || !content.includes(expectedAnswer(graphId))) {
    const seen = JSON.stringify(content ?? values ?? null).slice(0, 200);
    throw new Error(`unexpected ${graphId} result (last message: ${seen})`);
  }
}
