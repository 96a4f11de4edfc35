import { useState } from "preact/hooks";
import { CopyButton } from "./ui.js";

/** Ready-to-paste snippets calling a deployment's agent URL (the key stays a placeholder). */
export function snippets(url: string, graph: string): Record<string, string> {
  return {
    curl: `curl -s ${url}/runs/wait \\
  -H "X-Api-Key: $BERTH_API_KEY" -H 'Content-Type: application/json' \\
  -d '{"assistant_id":"${graph}","input":{"messages":[{"role":"user","content":"What is 6 * 7?"}]}}'`,
    "JS SDK": `import { Client } from "@langchain/langgraph-sdk";

const client = new Client({ apiUrl: "${url}", apiKey: process.env.BERTH_API_KEY });
const thread = await client.threads.create();
for await (const chunk of client.runs.stream(thread.thread_id, "${graph}", {
  input: { messages: [{ role: "user", content: "What is 6 * 7?" }] },
  streamMode: "messages-tuple",
})) console.log(chunk.event, chunk.data);`,
    "Python SDK": `from langgraph_sdk import get_client

client = get_client(url="${url}", api_key=os.environ["BERTH_API_KEY"])
thread = await client.threads.create()
async for chunk in client.runs.stream(thread["thread_id"], "${graph}",
        input={"messages": [{"role": "user", "content": "What is 6 * 7?"}]},
        stream_mode="messages-tuple"):
    print(chunk.event, chunk.data)`,
  };
}

/**
 * The agent URL with copy buttons and snippets for curl and the SDKs, calling one of the
 * deployment's graphs (a choice when it serves several).
 */
export function AgentUrl({ url, graphs }: { url: string; graphs: readonly string[] }) {
  const [picked, setPicked] = useState<string | null>(null);
  const graph = picked && graphs.includes(picked) ? picked : (graphs[0] ?? "<graph id>");
  const all = snippets(url, graph);
  const [shown, setShown] = useState("curl");
  const text = all[shown] ?? "";
  return (
    <div class="agent-url">
      <div class="url-row">
        <code id="agent-url">{url}</code>
        <CopyButton text={url} label="Copy URL" />
      </div>
      <div class="snippet-tabs">
        {Object.keys(all).map((k) => (
          <button
            key={k}
            type="button"
            class={`small${k === shown ? " active" : ""}`}
            onClick={() => setShown(k)}
          >
            {k}
          </button>
        ))}
        {graphs.length > 1 && (
          <select
            name="snippet-graph"
            aria-label="Graph"
            value={graph}
            onChange={(e) => setPicked((e.target as HTMLSelectElement).value)}
          >
            {graphs.map((g) => (
              <option key={g} value={g}>
                {g}
              </option>
            ))}
          </select>
        )}
        <CopyButton text={text} label="Copy snippet" />
      </div>
      <pre class="snippet">{text}</pre>
    </div>
  );
}
