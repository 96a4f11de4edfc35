import { useState } from "preact/hooks";
import type { Secret } from "../api/types.js";
import { ErrorBox } from "./ui.js";

/** The value the API sends back for every secret; sent again, it keeps the stored value. */
export const SECRET_MASK = "********";

interface Row {
  name: string;
  value: string;
  /** Whether the row was read from the deployment (its value unchanged until typed over). */
  stored: boolean;
}

/**
 * Secret names with masked values. Saving sends the whole list (unchanged values as the mask, which
 * the API resolves to the stored value) and so makes a new revision.
 */
export function SecretsEditor({
  secrets,
  onSave,
}: {
  secrets: Secret[];
  onSave(s: Secret[]): Promise<void>;
}) {
  const fresh = () => secrets.map((s) => ({ name: s.name, value: "", stored: true }));
  const [rows, setRows] = useState<Row[]>(fresh);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const update = (i: number, patch: Partial<Row>) =>
    setRows((r) => r.map((row, j) => (j === i ? { ...row, ...patch } : row)));
  const save = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      await onSave(
        rows
          .filter((r) => r.name.trim() !== "")
          .map((r) => ({ name: r.name.trim(), value: r.stored && r.value === "" ? SECRET_MASK : r.value })),
      );
      setSaved(true);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="secrets" onSubmit={save}>
      <table class="list">
        <thead>
          <tr>
            <th>Name</th>
            <th>Value</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={i}>
              <td>
                <input
                  name={`secret-name-${i}`}
                  value={row.name}
                  readOnly={row.stored}
                  onInput={(e) => update(i, { name: (e.target as HTMLInputElement).value })}
                />
              </td>
              <td>
                <input
                  name={`secret-value-${i}`}
                  type="password"
                  autocomplete="new-password"
                  placeholder={row.stored ? `${SECRET_MASK} (unchanged)` : "value"}
                  value={row.value}
                  onInput={(e) => update(i, { value: (e.target as HTMLInputElement).value })}
                />
              </td>
              <td>
                <button
                  type="button"
                  class="small"
                  onClick={() => setRows((r) => r.filter((_, j) => j !== i))}
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorBox error={error} />
      <div class="actions">
        <button
          type="button"
          class="small"
          onClick={() => setRows((r) => [...r, { name: "", value: "", stored: false }])}
        >
          Add secret
        </button>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? "Saving…" : "Save secrets (new revision)"}
        </button>
        {saved && <span class="muted">Saved: a new revision is on its way.</span>}
      </div>
      {secrets.length > 0 && rows.length === 0 && (
        <p class="muted">
          An empty list keeps the current secrets (the API changes nothing on an empty list).
        </p>
      )}
    </form>
  );
}
