import type { AgentServer } from "@berth/agent-server";

/** What a newcomer sees when `berth dev` is up: the URL and a first call to try. */
export function printDevBanner(server: AgentServer, dataDir: string): void {
  const graph = server.graphIds[0] ?? "agent";
  const lines = [
    "",
    `  Berth agent server listening on ${server.url}`,
    `  Graphs: ${server.graphIds.join(", ")}`,
    `  Data:   ${dataDir}`,
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
