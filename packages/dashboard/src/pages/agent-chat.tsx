import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { agentClient, preferredAssistant } from "../api/agent.js";
import { HumanInterruptForm } from "../components/human-interrupt.js";
import { InterruptForm } from "../components/interrupt-form.js";
import { MessageList, type WireMessage } from "../components/messages.js";
import { ErrorBox } from "../components/ui.js";
import { useSession } from "../context.js";
import { shortId } from "../format.js";
import { useLoad } from "../hooks.js";
import { setQuery, useLocation } from "../router.js";
import { applyMessage, interruptsOf, type PendingInterrupt, pendingOf } from "./chat-stream.js";
import type { DeploymentView } from "./deployment.js";
import { humanRequestOf, humanResume } from "./human-interrupt.js";

type Agent = ReturnType<typeof agentClient>;

/** Messages and pending interrupts of a thread, from its state. */
async function threadView(agent: Agent, threadId: string) {
  const state = await agent.threads.getState(threadId);
  const messages = ((state.values as { messages?: WireMessage[] } | null)?.messages ?? []) as WireMessage[];
  const interrupts: PendingInterrupt[] = state.tasks.flatMap((t) =>
    t.interrupts.map((i) => pendingOf(i as { value?: unknown; id?: string; response_schema?: unknown })),
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
  const assistantId = query.get("assistant") ?? preferredAssistant(assistants.data)?.assistant_id ?? "";
  const [messages, setMessages] = useState<WireMessage[]>([]);
  const [interrupts, setInterrupts] = useState<PendingInterrupt[]>([]);
  const [input, setInput] = useState("");
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const ownThread = useRef<string | null>(null);
  const abort = useRef<AbortController | null>(null);
  // The run being streamed (its id comes with the stream's metadata event), and whether Stop was
  // pressed before that id was known.
  const current = useRef<{ thread: string; run?: string; stop?: boolean } | null>(null);

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
    current.current = null;
    let thread = threadId;
    try {
      if (!thread) {
        thread = (await agent.threads.create()).thread_id;
        ownThread.current = thread;
        setQuery("thread", thread);
      }
      const mine = { thread };
      current.current = mine;
      const stream = agent.runs.stream(thread, assistantId, {
        ...payload,
        streamMode: ["messages-tuple", "updates"],
        signal: controller.signal,
      });
      for await (const chunk of stream) {
        if (chunk.event === "metadata") {
          const runId = (chunk.data as { run_id?: string }).run_id;
          current.current = { ...mine, ...(runId ? { run: runId } : {}) };
          if (runId && current.current.stop) void stop();
        } else if (chunk.event === "messages") {
          const [message] = chunk.data as unknown as [WireMessage, unknown];
          setMessages((list) => applyMessage(list, message));
        } else if (chunk.event === "updates") {
          const found = interruptsOf(chunk.data);
          if (found.length > 0) setInterrupts(found);
        } else if (chunk.event === "error") {
          setError(new Error(JSON.stringify(chunk.data)));
        }
      }
    } catch (e) {
      if (!controller.signal.aborted) setError(e);
    }
    try {
      // The thread's state is the record: it replaces what was assembled from the stream (after
      // Stop too: the partial answer of a cancelled step is not part of it).
      if (thread) {
        const view = await threadView(agent, thread);
        setMessages(view.messages);
        setInterrupts(view.interrupts);
      }
    } catch (e) {
      setError(e);
    } finally {
      current.current = null;
      setRunning(false);
    }
  };

  /** Stop cancels the run on the server (waiting for it to end), then drops the stream. */
  const stop = async () => {
    const target = current.current;
    if (!target?.run) {
      // The run's id has not arrived yet: cancel as soon as it does.
      if (target) target.stop = true;
      else abort.current?.abort();
      return;
    }
    try {
      await agent.runs.cancel(target.thread, target.run, true, "interrupt");
    } catch (e) {
      setError(e);
    } finally {
      abort.current?.abort();
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

  // One interrupt in the standard human shape gets buttons; anything else a typed form.
  const human = interrupts.length === 1 && interrupts[0] ? humanRequestOf(interrupts[0].value) : null;

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
          <button type="button" class="small" name="stop" onClick={() => void stop()}>
            Stop
          </button>
        )}
      </div>
      <MessageList messages={messages} />
      {running && <p class="muted live">streaming…</p>}
      <ErrorBox error={error} />
      {interrupts.length > 0 && !running ? (
        human ? (
          <div class="interrupt" id="interrupt">
            <h3>The run is waiting for you</h3>
            <HumanInterruptForm
              request={human.request}
              onAnswer={(response) => void run({ command: { resume: humanResume(human.listed, response) } })}
            />
          </div>
        ) : (
          <div class="interrupt" id="interrupt">
            <h3>The run is waiting for you</h3>
            <InterruptForm
              interrupts={interrupts}
              onResume={(value) => void run({ command: { resume: value } })}
            />
          </div>
        )
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
