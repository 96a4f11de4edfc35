import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** Path segments whose changes never restart the server (installs, VCS, build output, state). */
const QUIET_DIRS = new Set(["node_modules", ".git", ".berth", "dist"]);
/** Changes closer together than this make one restart (an editor's save writes several files). */
const DEBOUNCE_MS = 300;
/** How long a replaced server has to exit before it is killed (dev favours a quick reload). */
const STOP_GRACE_MS = 3_000;

const URL_LINE = /listening on http:\/\/[^:\s]+:(\d+)/i;

/** Whether a changed path (relative to the project) should restart the server. */
export function restartsOn(relative: string, dataDir: string | null): boolean {
  if (!relative) return false;
  const parts = relative.split(path.sep);
  if (parts.some((p) => QUIET_DIRS.has(p))) return false;
  if (dataDir && !path.relative(dataDir, relative).startsWith("..")) return false;
  return true;
}

/** Replaces the value of `--port` (or adds it) so a restarted server keeps the port users know. */
export function withPort(args: readonly string[], port: string): string[] {
  const out = [...args];
  const at = out.findIndex((a) => a === "--port" || a === "-p");
  if (at >= 0) out[at + 1] = port;
  else out.push("--port", port);
  return out;
}

/**
 * `berth dev --watch`: runs the agent server as a child (`--no-watch`) and starts a new one when a
 * project file changes, on the same port, like the official dev server. Restarting the process
 * (not re-importing in place) is what makes every changed module, dependencies included, load again.
 */
export async function superviseDev(options: {
  /** The CLI launcher and the `dev` arguments, without --watch. */
  bin: string;
  args: readonly string[];
  projectDir: string;
  dataDir: string;
}): Promise<number> {
  let args = [...options.args];
  let child: ChildProcess | null = null;
  let stopping = false;
  let timer: NodeJS.Timeout | null = null;
  let portKnown = false;

  // A server that never listened (bad configuration, busy port) ends the command with its code;
  // once one has served, a crash waits for the next change instead.
  let firstExit: (code: number) => void = () => {};
  const failedFirst = new Promise<number>((resolve) => {
    firstExit = resolve;
  });

  const start = () => {
    const started = spawn(process.execPath, [options.bin, "dev", ...args, "--no-watch"], {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, BERTH_DEV_SUPERVISED: "1" },
    });
    started.stdout?.on("data", (chunk: Buffer) => {
      process.stdout.write(chunk);
      const port = chunk.toString().match(URL_LINE)?.[1];
      if (port && !portKnown) {
        portKnown = true;
        args = withPort(args, port);
      }
    });
    started.once("exit", (code, signal) => {
      if (child === started) child = null;
      if (!portKnown && !stopping) {
        firstExit(code ?? 1);
        return;
      }
      if (!stopping && code !== 0 && signal !== "SIGTERM") {
        process.stderr.write(
          `The agent server exited (${signal ?? `code ${code}`}); it starts again when a project file changes.\n`,
        );
      }
    });
    child = started;
  };

  const stopChild = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
    running.kill("SIGTERM");
    const killer = setTimeout(() => running.kill("SIGKILL"), STOP_GRACE_MS);
    await exited;
    clearTimeout(killer);
  };

  // One restart at a time. A change during a restart (while the old server drains or the new one
  // loads) asks for one more after it: two overlapping restarts used to start two servers, the
  // loser of the port exited, and the winner, no longer tracked, kept serving old code while every
  // later restart failed on its port.
  let restarting: Promise<void> | null = null;
  let changedAgain: string | null = null;
  const restart = (relative: string) => {
    if (restarting) {
      changedAgain = relative;
      return;
    }
    restarting = (async () => {
      let changed = relative;
      for (;;) {
        process.stdout.write(`\n  ${changed} changed: restarting the agent server\n`);
        await stopChild();
        if (stopping) return;
        // Changed again while the old server stopped: the server started next loads that too.
        const again: string | null = changedAgain;
        changedAgain = null;
        if (again === null) break;
        changed = again;
      }
      start();
    })().finally(() => {
      restarting = null;
    });
  };

  const watcher = fs.watch(options.projectDir, { recursive: true }, (_event, file) => {
    const relative = file ? file.toString() : "";
    const dataRel = path.relative(options.projectDir, options.dataDir);
    if (stopping || !restartsOn(relative, dataRel.startsWith("..") ? null : dataRel)) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      restart(relative);
    }, DEBOUNCE_MS);
  });

  start();
  const ended = await Promise.race([
    failedFirst.then((code) => ({ code })),
    new Promise<{ signal: NodeJS.Signals }>((resolve) => {
      process.once("SIGINT", () => resolve({ signal: "SIGINT" }));
      process.once("SIGTERM", () => resolve({ signal: "SIGTERM" }));
    }),
  ]);
  if ("code" in ended) {
    watcher.close();
    return ended.code;
  }
  const { signal } = ended;
  stopping = true;
  watcher.close();
  if (timer) clearTimeout(timer);
  const running = child as ChildProcess | null;
  if (running && running.exitCode === null) {
    const exited = new Promise<number>((resolve) => running.once("exit", (code) => resolve(code ?? 0)));
    running.kill(signal);
    return exited;
  }
  return 0;
}

/**
 * A supervised server stops when its supervisor is gone (killed with SIGKILL, say), so it never
 * holds the data directory for a process nobody watches.
 */
export function exitWithSupervisor(): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) process.exit(1);
  }, 250);
  timer.unref();
}
