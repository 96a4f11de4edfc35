import type { StartedAgentServer } from "./agent-server-start.js";

/**
 * What a newcomer sees when `berth dev` is up: the URL and a first call to try. Behind the control
 * plane (`behindProxy`: the runtime gave it an agent token) this port refuses every caller but the
 * proxy, so the banner (in the revision's deploy log) points at the deployment's agent URL instead
 * of a Studio link that would only get 403.
 */
export function printDevBanner(server: StartedAgentServer, dataDir: string, behindProxy = false): void {
  if (behindProxy) {
    const lines = [
      `  Berth agent server listening on ${server.url} (only the control plane's proxy may call it)`,
      `  Graphs: ${server.graphIds.join(", ") || "none loaded"}`,
      ...notLoaded(server),
      "  Call it at the deployment's agent URL: <control plane URL>/agents/<deployment id>, with an API key.",
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
    return;
  }
  const graph = server.graphIds[0] ?? "agent";
  const lines = [
    "",
    `  Berth agent server listening on ${server.url}`,
    `  Graphs: ${server.graphIds.join(", ") || "none loaded"}`,
    ...notLoaded(server),
    `  Data:   ${dataDir}`,
    // The official dev server's wording: Studio in the browser talks to this server directly.
    `  Studio UI: ${studioUrl(server.url)}`,
    "",
    "  Try it (create a thread, start a run, wait for it):",
    `    T=$(curl -s -X POST ${server.url}/threads -H 'content-type: application/json' -d '{}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).thread_id')`,
    `    R=$(curl -s -X POST ${server.url}/threads/$T/runs -H 'content-type: application/json' \\`,
    `      -d '{"assistant_id":"${graph}","input":{"messages":[{"role":"user","content":"What is 6 * 7?"}]}}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).run_id')`,
    `    curl -s ${server.url}/threads/$T/runs/$R/join`,
    "",
    `  From TypeScript: new Client({ apiUrl: "${server.url}" }) from @langchain/langgraph-sdk`,
    "  Stop with Ctrl+C.",
    "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

function notLoaded(server: StartedAgentServer): string[] {
  return Object.entries(server.graphFailures).map(
    ([id, reason]) => `  NOT LOADED: ${id}: ${reason.split("\n")[0] ?? reason}`,
  );
}

/** The LangGraph Studio link for an agent server, as the official `langgraphjs dev` prints it. */
export function studioUrl(baseUrl: string): string {
  return `https://smith.langchain.com/studio?baseUrl=${baseUrl}`;
}
