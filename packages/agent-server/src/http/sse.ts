import type { FastifyReply } from "fastify";
import type { RunStreamEvent } from "../stream/types.js";

/** Largest backlog a slow client may build before its stream is closed. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

/** An open server-sent-events response. */
export interface SseWriter {
  readonly closed: boolean;
  send(event: RunStreamEvent): void;
  end(): void;
  /** Called once when the client goes away before `end`. */
  onClientGone(listener: () => void): void;
}

/**
 * Takes over the reply and writes SSE frames (`event`/`data`/`id`), with a `: heartbeat` comment
 * after each `heartbeatMs` of silence so proxies and the SDK's idle watchdog see a live stream.
 */
export function openSse(
  reply: FastifyReply,
  headers: Record<string, string>,
  heartbeatMs: number,
): SseWriter {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    connection: "keep-alive",
    "x-accel-buffering": "no",
    "access-control-expose-headers": "content-location, location, x-pagination-total",
    // Headers set before the hijack (CORS) would otherwise be lost.
    ...(reply.getHeaders() as Record<string, string>),
    ...headers,
  });
  res.flushHeaders();
  let closed = false;
  let ended = false;
  const goneListeners: Array<() => void> = [];
  let heartbeat: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(heartbeat);
    heartbeat = setTimeout(() => {
      if (write(": heartbeat\n\n")) arm();
    }, heartbeatMs);
  };
  const write = (chunk: string): boolean => {
    if (closed) return false;
    res.write(chunk);
    if (res.writableLength > MAX_BUFFERED_BYTES) {
      // The client does not read: drop it rather than hold its backlog in memory.
      res.destroy();
      return false;
    }
    return true;
  };
  res.on("close", () => {
    closed = true;
    clearTimeout(heartbeat);
    if (!ended) for (const listener of goneListeners) listener();
  });
  arm();
  return {
    get closed() {
      return closed;
    },
    send(event) {
      if (write(`event: ${event.event}\ndata: ${JSON.stringify(event.data)}\nid: ${event.id}\n\n`)) arm();
    },
    end() {
      ended = true;
      clearTimeout(heartbeat);
      if (!closed) res.end();
    },
    onClientGone(listener) {
      goneListeners.push(listener);
    },
  };
}
