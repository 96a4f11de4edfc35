// A run's messages as a conversation: who said what, the tool calls an AI message makes and the
// tool results answering them (the shapes are read by pages/trace-messages.ts).
import type { ChatMessage } from "../pages/trace-messages.js";

const WHO: Record<ChatMessage["role"], string> = { human: "human", ai: "ai", system: "system", tool: "tool" };

/** The messages, one bubble each. */
export function Conversation({ messages }: { messages: ChatMessage[] }) {
  return (
    <div class="messages conversation">
      {messages.map((m, i) => (
        // Messages of a trace have no stable id of their own; their order never changes.
        <div key={i} class={`message ${m.role}`} data-role={m.role}>
          <div class="who">
            {WHO[m.role]}
            {m.name ? ` · ${m.name}` : ""}
            {m.toolCallId ? <span class="muted"> · answers {m.toolCallId}</span> : null}
          </div>
          {m.text && <div class="text">{m.text}</div>}
          {m.parts.map((part, j) => (
            <pre key={j} class="part">
              {JSON.stringify(part, null, 2)}
            </pre>
          ))}
          {m.toolCalls.map((c, j) => (
            <div key={c.id ?? j} class="tool-call" data-tool={c.name}>
              <span class="tag">tool call</span> <b>{c.name}</b>
              <code>{JSON.stringify(c.args)}</code>
            </div>
          ))}
        </div>
      ))}
    </div>
  );
}
