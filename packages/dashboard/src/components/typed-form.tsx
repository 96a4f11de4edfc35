import { useState } from "preact/hooks";

/**
 * A form with one typed input per field of an object: text, number, a checkbox, or JSON for
 * anything structured. Fields come from a JSON schema's properties (a graph's state or input
 * schema, from /assistants/{id}/schemas) and from the keys the value itself has.
 */

/** What a JSON schema says about one property (only what the form reads). */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  description?: string;
  anyOf?: JsonSchema[];
}

export type FieldKind = "text" | "number" | "boolean" | "json";

export interface Field {
  key: string;
  kind: FieldKind;
  description?: string | undefined;
}

export function kindOfSchema(schema: JsonSchema | undefined): FieldKind | undefined {
  if (!schema) return undefined;
  const types = (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []).filter(
    (t) => t !== "null",
  );
  if (types.length !== 1) return schema.anyOf ? "json" : undefined;
  const [type] = types;
  if (type === "string") return "text";
  if (type === "number" || type === "integer") return "number";
  if (type === "boolean") return "boolean";
  return "json";
}

function kindOfValue(value: unknown): FieldKind | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return "text";
  if (typeof value === "number") return "number";
  if (typeof value === "boolean") return "boolean";
  return "json";
}

/** The fields of `value`, typed by `schema` where it says, else by the value's own shape. */
export function fieldsOf(schema: JsonSchema | null | undefined, value: Record<string, unknown>): Field[] {
  const properties = schema?.properties ?? {};
  const keys = [...new Set([...Object.keys(properties), ...Object.keys(value)])];
  return keys.map((key) => {
    const fromSchema = kindOfSchema(properties[key]);
    const fromValue = kindOfValue(value[key]);
    // A value that does not fit what the schema says is still editable, as JSON.
    const kind =
      fromSchema && fromValue && fromSchema !== fromValue ? "json" : (fromSchema ?? fromValue ?? "json");
    return { key, kind, description: properties[key]?.description };
  });
}

/** The text an input starts with for a field's value. */
export function textOf(field: Field, value: unknown): string {
  if (field.kind === "json") return value === undefined ? "" : JSON.stringify(value, null, 2);
  if (field.kind === "boolean") return value === true ? "true" : "false";
  return value === undefined || value === null ? "" : String(value);
}

/** A field's text as its typed value, or the reason it is not one. */
export function parseText(field: Field, text: string): { value: unknown } | { error: string } {
  if (field.kind === "text") return { value: text };
  if (field.kind === "boolean") return { value: text === "true" };
  if (field.kind === "number") {
    const n = Number(text);
    return text.trim() !== "" && Number.isFinite(n) ? { value: n } : { error: "a number" };
  }
  if (text.trim() === "") return { value: undefined };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return { error: "valid JSON" };
  }
}

/** The form's state: texts per field, and what they parse to. */
export function useTypedForm(fields: Field[], initial: Record<string, unknown>) {
  const [texts, setTexts] = useState<Record<string, string>>(() =>
    Object.fromEntries(fields.map((f) => [f.key, textOf(f, initial[f.key])])),
  );
  // Text that starts long gets a text area; decided once, so typing never swaps the element.
  const [long] = useState(
    () =>
      new Set(
        fields
          .filter((f) => f.kind === "text" && /\n|.{61}/.test(textOf(f, initial[f.key])))
          .map((f) => f.key),
      ),
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  const set = (key: string, text: string) => {
    setTexts((t) => ({ ...t, [key]: text }));
    // An edited field's old complaint goes; the next submit checks it again.
    setErrors((e) => {
      const { [key]: _gone, ...rest } = e;
      return rest;
    });
  };
  /** The typed values (only the fields whose text changed when `changedOnly`), or null with errors shown. */
  const collect = (changedOnly: boolean): Record<string, unknown> | null => {
    const values: Record<string, unknown> = {};
    const found: Record<string, string> = {};
    for (const field of fields) {
      const text = texts[field.key] ?? "";
      if (changedOnly && text === textOf(field, initial[field.key])) continue;
      const parsed = parseText(field, text);
      if ("error" in parsed) found[field.key] = `${field.key} must be ${parsed.error}.`;
      else if (parsed.value !== undefined) values[field.key] = parsed.value;
    }
    setErrors(found);
    return Object.keys(found).length > 0 ? null : values;
  };
  return { texts, errors, long, set, collect };
}

/** The inputs of a typed form (named `field-<key>`), each with its type and its error. */
export function TypedFields(props: { fields: Field[]; form: ReturnType<typeof useTypedForm> }) {
  const { fields, form } = props;
  return (
    <div class="typed-fields">
      {fields.map((field) => {
        const text = form.texts[field.key] ?? "";
        const error = form.errors[field.key];
        const name = `field-${field.key}`;
        const onInput = (e: Event) => form.set(field.key, (e.target as HTMLInputElement).value);
        return (
          <label
            key={field.key}
            htmlFor={name}
            class={`field${error ? " invalid" : ""}`}
            data-kind={field.kind}
          >
            <span>
              {field.key} <span class="tag">{field.kind}</span>
              {field.description && <small class="hint"> {field.description}</small>}
            </span>
            {field.kind === "boolean" ? (
              <input
                type="checkbox"
                id={name}
                name={name}
                checked={text === "true"}
                onChange={(e) =>
                  form.set(field.key, (e.target as HTMLInputElement).checked ? "true" : "false")
                }
              />
            ) : field.kind === "json" || form.long.has(field.key) ? (
              <textarea
                id={name}
                name={name}
                rows={field.kind === "json" ? 8 : 3}
                value={text}
                onInput={onInput}
              />
            ) : (
              <input
                id={name}
                type={field.kind === "number" ? "number" : "text"}
                name={name}
                value={text}
                onInput={onInput}
              />
            )}
            {error && <small class="field-error">{error}</small>}
          </label>
        );
      })}
    </div>
  );
}
