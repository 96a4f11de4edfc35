import { useState } from "preact/hooks";
import type { HumanRequest, HumanResponse } from "../pages/human-interrupt.js";

/**
 * A standard human interrupt answered with buttons, as Studio offers them: Accept, Edit (the
 * action's arguments as JSON), Respond (text) and Ignore, each only when its config allows it.
 */
export function HumanInterruptForm({
  request,
  onAnswer,
}: {
  request: HumanRequest;
  onAnswer(response: HumanResponse): void;
}) {
  const { action_request: action, config } = request;
  const [mode, setMode] = useState<"edit" | "respond" | null>(null);
  const [args, setArgs] = useState(JSON.stringify(action.args, null, 2));
  const [text, setText] = useState("");
  const [invalid, setInvalid] = useState<string | null>(null);
  const sendEdit = () => {
    try {
      const parsed: unknown = JSON.parse(args);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
        throw new Error("an object");
      onAnswer({ type: "edit", args: { action: action.action, args: parsed as Record<string, unknown> } });
    } catch {
      setInvalid("The arguments must be a JSON object.");
    }
  };
  return (
    <div class="human-interrupt" data-action={action.action}>
      {request.description && <p class="description">{request.description}</p>}
      <p>
        <span class="tag">action</span> <b>{action.action}</b>
      </p>
      <pre class="json">{JSON.stringify(action.args, null, 2)}</pre>
      <div class="actions">
        {config.allow_accept && (
          <button type="button" class="primary" onClick={() => onAnswer({ type: "accept", args: null })}>
            Accept
          </button>
        )}
        {config.allow_edit && (
          <button type="button" onClick={() => setMode("edit")}>
            Edit
          </button>
        )}
        {config.allow_respond && (
          <button type="button" onClick={() => setMode("respond")}>
            Respond
          </button>
        )}
        {config.allow_ignore && (
          <button type="button" onClick={() => onAnswer({ type: "ignore", args: null })}>
            Ignore
          </button>
        )}
      </div>
      {mode === "edit" && (
        <label class="field">
          <span>Arguments of {action.action} (JSON)</span>
          <textarea
            name="edit-args"
            rows={6}
            value={args}
            onInput={(e) => setArgs((e.target as HTMLTextAreaElement).value)}
          />
          {invalid && <small class="field-error">{invalid}</small>}
          <button type="button" class="primary" onClick={sendEdit}>
            Send edited action
          </button>
        </label>
      )}
      {mode === "respond" && (
        <label class="field">
          <span>Your response</span>
          <textarea
            name="response"
            rows={3}
            value={text}
            onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
          />
          <button
            type="button"
            class="primary"
            disabled={!text.trim()}
            onClick={() => onAnswer({ type: "response", args: text })}
          >
            Send response
          </button>
        </label>
      )}
    </div>
  );
}
