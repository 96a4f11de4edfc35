import { createHash } from "node:crypto";

/**
 * The one Lua script Berth runs in Redis: append one event to a run's log (a Redis stream, capped,
 * expiring) and publish it with the id the log gave it, in one step, so subscribers see log and
 * live messages in the same order. KEYS: log, channel; ARGV: max length, payload, TTL in ms.
 * Shared because the agent server runs it by its SHA (EVALSHA) and the control plane loads it
 * (SCRIPT LOAD) for deployments whose Redis users may not run EVAL.
 */
export const STREAM_APPEND_SCRIPT = `
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'p', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PUBLISH', KEYS[2], id .. '\\n' .. ARGV[2])
return id`;

/** The SHA-1 Redis names STREAM_APPEND_SCRIPT by (what EVALSHA takes). */
export const STREAM_APPEND_SHA = createHash("sha1").update(STREAM_APPEND_SCRIPT).digest("hex");
