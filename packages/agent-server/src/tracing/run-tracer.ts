import { __version__ as LANGSMITH_VERSION } from "langsmith";
import type { Logger } from "pino";
import { encodeGroup, type RunConstants } from "./encode.js";
import { LeanTracer } from "./handler.js";
import { RunBook } from "./run-book.js";
import { MultipartIngestSender, type TraceSink } from "./sender.js";
import type { TracerChoice } from "./settings.js";

/** How runs are traced: the callbacks each run's config carries, and the flush at shutdown. */
export interface RunTracer {
  /** Handlers for a run's `callbacks` (one shared, stateless-per-run list), or undefined: none added. */
  readonly callbacks: readonly unknown[] | undefined;
  /** Which tracer this is, for the start-up log. */
  readonly kind: TracerChoice["kind"];
  /** Sends what ended (and what is still open, as the SDK would have posted its start), within `ms`. */
  drain(ms: number): Promise<void>;
}

/** The `extra.runtime` block the SDK's client writes: langsmith's environment, then LangChain's. */
function runtimeBlock(releaseShas: Readonly<Record<string, string>>): Record<string, string> {
  return {
    library: "langchain-js",
    runtime: "node",
    sdk: "langsmith-js",
    sdk_version: LANGSMITH_VERSION,
    ...releaseShas,
  };
}

/** The agent server's tracer for runs, built once by the composition root. */
export function createRunTracer(choice: TracerChoice, logger: Logger, sink?: TraceSink): RunTracer {
  if (choice.kind !== "lean") {
    // Off, or LangChain's own tracer: @langchain/core adds it to every run when tracing is on.
    return { callbacks: undefined, kind: choice.kind, drain: async () => {} };
  }
  const { settings } = choice;
  const constants: RunConstants = {
    project: settings.project,
    envMetadata: settings.envMetadata,
    runtime: runtimeBlock(settings.releaseShas),
  };
  const book = new RunBook();
  const out = sink ?? new MultipartIngestSender(settings, logger.child({ component: "tracing" }));
  const callbacks = Object.freeze([new LeanTracer(book, out, constants)]);
  return {
    callbacks,
    kind: "lean",
    async drain(ms) {
      // Traces that ended are written on the turn after (LeanTracer.finish): let them be.
      await new Promise<void>((resolve) => setImmediate(resolve));
      for (const group of book.takeAll()) out.send(encodeGroup(group, constants));
      await out.drain(ms);
    },
  };
}
