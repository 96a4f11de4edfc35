// Messages as the agent API returns them (LangChain message dicts).

/** A message dict as it comes over the wire. */
export interface WireMessage {
  id?: string;
  type: string;
  content: unknown;
  name?: string;
  tool_calls?: Array<{ id?: string; name: string; args: unknown }>;
  /** A streamed chunk's pieces of tool calls (arguments as partial JSON text). */
  tool_call_chunks?: Array<{ index?: number; id?: string; name?: string; args?: string }>;
  tool_call_id?: string;
}

/** The text of a message's content (string, or the text blocks of a list). */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((b) => (typeof b === "string" ? b : ((b as { text?: string }).text ?? ""))).join("");
  }
  return content === undefined || content === null ? "" : JSON.stringify(content);
}

function role(type: string): string {
  if (type === "human" || type === "user") return "user";
  if (type === "tool") return "tool";
  if (type === "system") return "system";
  return "ai";
}

/** A conversation: user, assistant (with its tool calls) and tool results. */
export function MessageList({ messages }: { messages: WireMessage[] }) {
  return (
    <div class="messages">
      {messages.map((m, i) => {
        const r = role(m.type);
        const text = textOf(m.content);
        return (
          <div key={m.id ?? i} class={`message ${r}`} data-role={r}>
            <div class="who">{r === "tool" ? `tool · ${m.name ?? ""}` : r}</div>
            {text && <div class="text">{text}</div>}
            {m.tool_calls?.map((c, j) => (
              <div key={c.id ?? j} class="tool-call" data-tool={c.name}>
                <span class="tag">tool call</span> <b>{c.name}</b>
                <code>{JSON.stringify(c.args)}</code>
              </div>
            ))}
          </div>
        );
      })}
    </div>
  );
}
