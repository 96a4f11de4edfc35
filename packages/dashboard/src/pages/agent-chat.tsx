import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { agentClient } from "../api/agent.js";
import { MessageList, type WireMessage } from "../components/messages.js";
import { ErrorBox } from "../components/ui.js";
import { useSession } from "../context.js";
import { shortId } from "../format.js";
import { useLoad } from "../hooks.js";
import { setQuery, useLocation } from "../router.js";
import { applyMessage, interruptsOf, type PendingInterrupt, resumeValue } from "./chat-stream.js";
import type { DeploymentView } from "./deployment.js";

type Agent = ReturnType<typeof agentClient>;

/** Messages and pending interrupts of a thread, from its state. */
async function threadView(agent: Agent, threadId: string) {
  const state = await agent.threads.getState(threadId);
  const messages = ((state.values as { messages?: WireMessage[] } | null)?.messages ?? []) as WireMessage[];
  const interrupts: PendingInterrupt[] = state.tasks.flatMap((t) =>
    t.interrupts.map((i) => ({ value: i.value, ...(i.id ? { id: i.id } : {}) })),
  );
  return { messages, interrupts };
}

/** A chat with the agent: streams tokens (messages-tuple), shows tool calls, resumes interrupts. */
export function AgentChat({ deployment }: DeploymentView) {
  const { client } = useSession();
  const agent = useMemo(() => agentClient(client, deployment.id), [client, deployment.id]);
  const { query } = useLocation();
  const threadId = query.get("thread");
  const assistants = useLoad(() => agent.assistants.search({ limit: 50 }), [agent]);
  const assistantId =
    query.get("assistant") ??
    assistants.data?.find((a) => a.graph_id === "agent")?.assistant_id ??
    assistants.data?.[0]?.assistant_id ??
    "";
  const [messages, setMessages] = useState<WireMessage[]>([]);
  const [interrupts, setInterrupts] = useState<PendingInterrupt[]>([]);
  const [input, setInput] = useState("");
  const [resume, setResume] = useState("");
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const ownThread = useRef<string | null>(null);
  const abort = useRef<AbortController | null>(null);

  // Opening an existing thread shows its messages and any waiting interrupt.
  useEffect(() => {
    if (!threadId || threadId === ownThread.current) return;
    setMessages([]);
    setInterrupts([]);
    threadView(agent, threadId).then((v) => {
      setMessages(v.messages);
      setInterrupts(v.interrupts);
    }, setError);
  }, [agent, threadId]);
  useEffect(() => () => abort.current?.abort(), []);

  const run = async (payload: { input?: Record<string, unknown>; command?: { resume: unknown } }) => {
    setRunning(true);
    setError(null);
    setInterrupts([]);
    const controller = new AbortController();
    abort.current = controller;
    try {
      let thread = threadId;
      if (!thread) {
        thread = (await agent.threads.create()).thread_id;
        ownThread.current = thread;
        setQuery("thread", thread);
      }
      const stream = agent.runs.stream(thread, assistantId, {
        ...payload,
        streamMode: ["messages-tuple", "updates"],
        signal: controller.signal,
      });
      for await (const chunk of stream) {
        if (chunk.event === "messages") {
          const [message] = chunk.data as unknown as [WireMessage, unknown];
          setMessages((list) => applyMessage(list, message));
        } else if (chunk.event === "updates") {
          const found = interruptsOf(chunk.data);
          if (found.length > 0) setInterrupts(found);
        } else if (chunk.event === "error") {
          setError(new Error(JSON.stringify(chunk.data)));
        }
      }
      // The thread's state is the record: it replaces what was assembled from the stream.
      const view = await threadView(agent, thread);
      setMessages(view.messages);
      setInterrupts(view.interrupts);
    } catch (e) {
      if (!controller.signal.aborted) setError(e);
    } finally {
      setRunning(false);
    }
  };

  const send = (event: Event) => {
    event.preventDefault();
    const text = input.trim();
    if (!text || running) return;
    setInput("");
    setMessages((list) => [...list, { type: "human", content: text, id: `local-${Date.now()}` }]);
    void run({ input: { messages: [{ role: "user", content: text }] } });
  };

  if (!deployment.active_revision_id) return <p class="muted">No revision is serving yet.</p>;
  return (
    <div class="chat card" id="chat">
      <div class="filters">
        <select
          name="assistant"
          aria-label="Assistant"
          value={assistantId}
          onChange={(e) => setQuery("assistant", (e.target as HTMLSelectElement).value)}
        >
          {assistants.data?.map((a) => (
            <option key={a.assistant_id} value={a.assistant_id}>
              {a.name} ({a.graph_id})
            </option>
          ))}
        </select>
        <span class="muted mono">{threadId ? `thread ${shortId(threadId)}` : "new thread"}</span>
        <button
          type="button"
          class="small"
          onClick={() => {
            ownThread.current = null;
            setMessages([]);
            setInterrupts([]);
            setQuery("thread", null);
          }}
        >
          New thread
        </button>
        {running && (
          <button type="button" class="small" onClick={() => abort.current?.abort()}>
            Stop
          </button>
        )}
      </div>
      <MessageList messages={messages} />
      {running && <p class="muted live">streaming…</p>}
      <ErrorBox error={error} />
      {interrupts.length > 0 && !running ? (
        <form
          class="interrupt"
          id="interrupt"
          onSubmit={(e) => {
            e.preventDefault();
            void run({ command: { resume: resumeValue(resume) } });
            setResume("");
          }}
        >
          <h3>The run is waiting for you</h3>
          {interrupts.map((i, n) => (
            <pre class="json" key={i.id ?? n}>
              {JSON.stringify(i.value, null, 2)}
            </pre>
          ))}
          <label class="field">
            <span>Resume value (text, or JSON)</span>
            <input
              name="resume"
              value={resume}
              onInput={(e) => setResume((e.target as HTMLInputElement).value)}
            />
          </label>
          <button type="submit" class="primary">
            Resume
          </button>
        </form>
      ) : (
        <form class="composer" onSubmit={send}>
          <input
            name="message"
            placeholder="Message the agent"
            value={input}
            disabled={running}
            onInput={(e) => setInput((e.target as HTMLInputElement).value)}
          />
          <button type="submit" class="primary" disabled={running || !assistantId}>
            Send
          </button>
        </form>
      )}
    </div>
  );
}
