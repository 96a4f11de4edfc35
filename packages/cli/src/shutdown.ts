/**
 * Resolves once `server` has closed after SIGINT/SIGTERM; a second signal exits at once. `note`
 * says what stopping means for this server.
 */
export function closeOnSignal(server: { close(): Promise<void> }, note: string): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) process.exit(130);
      stopping = true;
      process.stderr.write(`\n${signal}: stopping${note ? ` (${note})` : ""}…\n`);
      server.close().then(
        () => resolve(),
        (error: unknown) => {
          process.stderr.write(`berth: error while stopping: ${String(error)}\n`);
          process.exitCode = 1;
          resolve();
        },
      );
    };
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
  });
}
