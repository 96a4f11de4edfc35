import type { Client } from "@langchain/langgraph-sdk/client";
import { useState } from "preact/hooks";
import { fieldsOf, type JsonSchema, TypedFields, useTypedForm } from "./typed-form.js";
import { ErrorBox } from "./ui.js";

/**
 * Edits a thread's state at one of its checkpoints and forks from there, as Studio does: the
 * changed fields are written with `POST /threads/{id}/state` and that checkpoint's id (a new
 * checkpoint branching off it; the old branch stays in the history), and "Fork and run" then runs
 * the thread's assistant from the new checkpoint.
 */
export function CheckpointEditor(props: {
  agent: Client;
  threadId: string;
  checkpointId: string;
  values: Record<string, unknown>;
  stateSchema: JsonSchema | null;
  /** The assistant a fork runs with (the thread's last run's), if known. */
  assistantId: string | undefined;
  onDone(): void;
  onCancel(): void;
}) {
  const { agent, threadId, checkpointId, values } = props;
  const [fields] = useState(() => fieldsOf(props.stateSchema, values));
  const form = useTypedForm(fields, values);
  const [asNode, setAsNode] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const save = async (run: boolean) => {
    const changed = form.collect(true);
    if (!changed) return;
    setBusy(true);
    setError(null);
    try {
      const written = await agent.threads.updateState(threadId, {
        values: changed,
        checkpointId,
        ...(asNode.trim() ? { asNode: asNode.trim() } : {}),
      });
      const forked = (written.configurable as { checkpoint_id?: string } | undefined)?.checkpoint_id;
      if (run && props.assistantId) {
        const started = await agent.runs.create(threadId, props.assistantId, {
          input: null,
          ...(forked ? { checkpointId: forked } : {}),
        });
        await agent.runs.join(threadId, started.run_id);
      }
      props.onDone();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      class="checkpoint-editor"
      id="checkpoint-editor"
      data-checkpoint={checkpointId}
      onSubmit={(e) => {
        e.preventDefault();
        void save(true);
      }}
    >
      <h3>
        Edit the state at checkpoint <span class="mono">{checkpointId.slice(0, 13)}</span>
      </h3>
      <p class="hint">
        Only changed fields are written (each through its reducer: messages with the same id are replaced).
        The thread forks: a new checkpoint after this one, the old branch kept.
      </p>
      <TypedFields fields={fields} form={form} />
      <label class="field">
        <span>As node (optional)</span>
        <input
          name="as-node"
          placeholder="the graph decides"
          value={asNode}
          onInput={(e) => setAsNode((e.target as HTMLInputElement).value)}
        />
      </label>
      <ErrorBox error={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy || !props.assistantId}>
          Fork and run
        </button>
        <button type="button" disabled={busy} onClick={() => void save(false)}>
          Save as new checkpoint
        </button>
        <button type="button" class="small" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
