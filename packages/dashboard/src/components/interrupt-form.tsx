import { useState } from "preact/hooks";
import type { PendingInterrupt } from "../pages/chat-stream.js";
import { resumeValue } from "../pages/chat-stream.js";
import { type Field, fieldsOf, kindOfSchema, TypedFields, useTypedForm } from "./typed-form.js";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value shown by its fields: text as text, anything structured as compact JSON. */
function ValueView({ value }: { value: unknown }) {
  if (!isRecord(value)) {
    return <p class="interrupt-value">{typeof value === "string" ? value : JSON.stringify(value)}</p>;
  }
  return (
    <dl class="interrupt-value">
      {Object.entries(value).map(([key, v]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>{typeof v === "string" ? v : <code>{JSON.stringify(v)}</code>}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * The fields of a resume form: the interrupt's `response_schema` when the graph gave one (an
 * object's properties, or one `answer` field of a plain type), else the interrupt value's own shape.
 * `single` says the resume value is that one field's value rather than an object.
 */
function formOf(
  pending: PendingInterrupt,
): { fields: Field[]; initial: Record<string, unknown>; single: boolean } | null {
  const schema = pending.responseSchema;
  if (schema?.properties) return { fields: fieldsOf(schema, {}), initial: {}, single: false };
  if (schema) {
    const kind = kindOfSchema(schema) ?? "json";
    return { fields: [{ key: "answer", kind, description: schema.description }], initial: {}, single: true };
  }
  if (isRecord(pending.value))
    return { fields: fieldsOf(null, pending.value), initial: pending.value, single: false };
  return null;
}

function SchemaForm(props: { form: NonNullable<ReturnType<typeof formOf>>; onResume(value: unknown): void }) {
  const { fields, initial, single } = props.form;
  const state = useTypedForm(fields, initial);
  return (
    <form
      class="typed-resume"
      onSubmit={(e) => {
        e.preventDefault();
        const values = state.collect(false);
        if (values) props.onResume(single ? values.answer : values);
      }}
    >
      <TypedFields fields={fields} form={state} />
      <button type="submit" class="primary">
        Resume
      </button>
    </form>
  );
}

function TextForm(props: { json: boolean; onResume(value: unknown): void }) {
  const [text, setText] = useState("");
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        props.onResume(props.json ? resumeValue(text) : text);
      }}
    >
      {props.json ? (
        <label class="field">
          <span>Resume value (JSON, or text)</span>
          <textarea
            name="resume"
            rows={4}
            value={text}
            onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
          />
        </label>
      ) : (
        <label class="field">
          <span>Your answer</span>
          <input name="answer" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
        </label>
      )}
      <button type="submit" class="primary">
        Resume
      </button>
    </form>
  );
}

/**
 * An interrupt that is not the standard human-interrupt shape: its value shown field by field, and
 * a resume form typed by the interrupt's response schema (or by its value's shape: "Form"), a
 * plain text answer ("Text", the default without a schema: most graphs resume with a string), and
 * raw JSON one click away.
 */
export function InterruptForm({
  interrupts,
  onResume,
}: {
  interrupts: PendingInterrupt[];
  onResume(value: unknown): void;
}) {
  const first = interrupts[0];
  const form = first ? formOf(first) : null;
  const [mode, setMode] = useState<"form" | "text" | "json">(first?.responseSchema && form ? "form" : "text");
  const [raw, setRaw] = useState(false);
  const modes = [...(form ? (["form"] as const) : []), "text", "json"] as const;
  return (
    <div class="generic-interrupt" data-mode={mode} data-schema={first?.responseSchema ? "yes" : "no"}>
      {interrupts.map((i, n) => (
        <ValueView key={i.id ?? n} value={i.value} />
      ))}
      <button type="button" class="small link" name="raw-json" onClick={() => setRaw(!raw)}>
        {raw ? "Hide raw JSON" : "Raw JSON"}
      </button>
      {raw &&
        interrupts.map((i, n) => (
          <pre class="json" key={i.id ?? n}>
            {JSON.stringify(
              { value: i.value, ...(i.responseSchema ? { response_schema: i.responseSchema } : {}) },
              null,
              2,
            )}
          </pre>
        ))}
      <div class="segmented" role="tablist" aria-label="Answer with">
        {modes.map((m) => (
          <button
            key={m}
            type="button"
            name={`mode-${m}`}
            class={`small${m === mode ? " active" : ""}`}
            onClick={() => setMode(m)}
          >
            {m === "form" ? "Form" : m === "text" ? "Text" : "JSON"}
          </button>
        ))}
      </div>
      {mode === "form" && form ? (
        <SchemaForm key="form" form={form} onResume={onResume} />
      ) : (
        <TextForm key={mode} json={mode === "json"} onResume={onResume} />
      )}
    </div>
  );
}
