import { z } from "zod";

/** A JSON object with arbitrary keys (metadata, config, values…). */
export const JsonObject = z.record(z.string(), z.unknown());
export type JsonObject = z.infer<typeof JsonObject>;

/** Canonical lowercase uuid (any version): thread, run and assistant ids. */
export const Uuid = z.uuid({ version: undefined }).transform((value) => value.toLowerCase());

/** The four double-texting strategies of the Agent Server. */
export const MultitaskStrategy = z.enum(["reject", "enqueue", "interrupt", "rollback"]);
export type MultitaskStrategy = z.infer<typeof MultitaskStrategy>;

/** Run statuses as the official server reports them. */
export const RunStatus = z.enum(["pending", "running", "success", "error", "timeout", "interrupted"]);
export type RunStatus = z.infer<typeof RunStatus>;

/** Thread statuses, computed after each run. */
export const ThreadStatus = z.enum(["idle", "busy", "interrupted", "error"]);
export type ThreadStatus = z.infer<typeof ThreadStatus>;

/** Stream modes a run may request. */
export const StreamMode = z.enum([
  "values",
  "messages",
  "messages-tuple",
  "updates",
  "events",
  "debug",
  "custom",
  "tasks",
  "checkpoints",
]);
export type StreamMode = z.infer<typeof StreamMode>;

/**
 * A run's webhook: an http(s) URL, or a path of the server's own app ("/custom/hook"), which the
 * official servers deliver to themselves (the project's `http.app` routes included).
 */
export const WebhookTarget = z.union([
  z.url({ protocol: /^https?$/ }),
  z
    .string()
    .regex(/^\/(?![/\\])/, "Invalid URL: expected an http(s) URL or a path of this server starting with /"),
]);

/** The body of every agent-server error response. */
export const ErrorBody = z.object({ detail: z.string() });
export type ErrorBody = z.infer<typeof ErrorBody>;
