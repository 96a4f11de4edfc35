/** What replaces a secret value in a log line. */
export const REDACTED = "[redacted]";

/** Values shorter than this are not redacted: a two-letter secret would blank out common words. */
const MIN_REDACTED_LENGTH = 4;

/**
 * A function that replaces every occurrence of the given secret values in a text (longest first,
 * so a value containing another is replaced whole). Pure: log lines of a revision pass through it
 * whatever produced them (build output, agent output, errors).
 */
export function secretRedactor(values: readonly string[]): (text: string) => string {
  const secrets = [...new Set(values.filter((v) => v.length >= MIN_REDACTED_LENGTH))].sort(
    (a, b) => b.length - a.length,
  );
  if (secrets.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  };
}

/** An error whose message and stack have gone through `redact` (for the control plane's own log). */
export function redactError(error: unknown, redact: (text: string) => string): Error {
  const original = error instanceof Error ? error : new Error(String(error));
  const copy = new Error(redact(original.message));
  copy.name = original.name;
  copy.stack = original.stack === undefined ? undefined : redact(original.stack);
  return copy;
}
