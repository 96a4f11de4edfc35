import { useState } from "preact/hooks";
import { ApiError } from "../api/errors.js";
import { ErrorBox } from "../components/ui.js";

/** Sign-in with an API key (kept in sessionStorage for this tab only). */
export function SignIn({ onSignIn }: { onSignIn(key: string): Promise<void> }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onSignIn(key.trim());
    } catch (e) {
      setError(
        e instanceof ApiError && e.status === 401
          ? new ApiError(401, `This API key was not accepted: ${e.message}`)
          : e,
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="sign-in">
      <form class="card" onSubmit={submit}>
        <h1>Berth</h1>
        <p class="muted">
          Sign in with an API key. <code>berth up</code> prints the first admin key;{" "}
          <code>berth keys create</code> makes more. The key stays in this browser tab only.
        </p>
        <label class="field">
          <span>API key</span>
          <input
            name="api-key"
            type="password"
            autocomplete="off"
            required
            value={key}
            onInput={(e) => setKey((e.target as HTMLInputElement).value)}
          />
        </label>
        <ErrorBox error={error} />
        <button type="submit" class="primary" disabled={busy || key.trim() === ""}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </div>
  );
}
