// Small building blocks shared by the pages.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { ApiError, messageOf } from "../api/errors.js";
import { statusTone } from "../format.js";

/** A status with its colour (green deployed, red failed, blue in progress, grey otherwise). */
export function StatusBadge({ status }: { status: string | undefined }) {
  return (
    <span class={`badge ${statusTone(status)}`} data-status={status ?? ""}>
      {status ?? "…"}
    </span>
  );
}

/** A button copying `text` to the clipboard (with a fallback for non-secure origins). */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      const area = document.createElement("textarea");
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    setDone(true);
    setTimeout(() => setDone(false), 1200);
  };
  return (
    <button type="button" class="small" onClick={copy}>
      {done ? "Copied" : label}
    </button>
  );
}

/** An error shown to the user (an API error's status and detail). */
export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const status = error instanceof ApiError ? ` (${error.status})` : "";
  return (
    <div class="error" role="alert">
      {messageOf(error)}
      {status}
    </div>
  );
}

/** A labelled form field with the API's validation messages for it underneath. */
export function Field(props: {
  label: string;
  name: string;
  error?: unknown;
  hint?: string;
  children: ComponentChildren;
}) {
  const messages = props.error instanceof ApiError ? props.error.fieldMessages(props.name) : [];
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is the child passed in
    <label class={`field${messages.length ? " invalid" : ""}`} data-field={props.name}>
      <span>{props.label}</span>
      {props.children}
      {props.hint && <small class="hint">{props.hint}</small>}
      {messages.map((m) => (
        <small class="field-error" key={m}>
          {m}
        </small>
      ))}
    </label>
  );
}

/** Tabs as links (each tab has its own URL). */
export function Tabs({
  tabs,
  current,
}: {
  tabs: Array<{ id: string; label: string; href: string }>;
  current: string;
}) {
  return (
    <nav class="tabs">
      {tabs.map((t) => (
        <a
          key={t.id}
          href={t.href}
          class={t.id === current ? "active" : ""}
          aria-current={t.id === current ? "page" : undefined}
        >
          {t.label}
        </a>
      ))}
    </nav>
  );
}

/** A muted "loading" line. */
export function Loading({ what = "Loading" }: { what?: string }) {
  return <p class="muted">{what}…</p>;
}
