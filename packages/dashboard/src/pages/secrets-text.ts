/** `NAME=value` lines → secrets (blank lines and # comments skipped; values keep their '='). */
export function parseSecrets(text: string): Array<{ name: string; value: string }> {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const eq = line.indexOf("=");
      return eq < 0
        ? { name: line, value: "" }
        : { name: line.slice(0, eq).trim(), value: line.slice(eq + 1) };
    });
}
