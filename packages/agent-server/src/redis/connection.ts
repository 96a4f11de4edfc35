import { Redis } from "ioredis";
import type { Logger } from "pino";

/**
 * A Redis connection that outlives Redis restarts: it reconnects forever (every 0.2–2 s), queues
 * commands while down and sends them in order once back (a stream event is late, never lost while
 * this process lives), and re-subscribes its channels. Errors are logged once per outage.
 */
export function connectRedis(url: string, name: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    connectionName: name,
    // No CLIENT SETINFO: a deployment's Redis user (control plane ACL) may run only what the
    // adapters need, and the rule cannot name SETINFO on Redis < 7.2 (each refusal would be
    // swallowed by ioredis, but land in ACL LOG).
    disableClientInfo: true,
    // No INFO ready check either: INFO tells every client about the whole server (other tenants'
    // clients and key counts), so deployments' users may not run it.
    enableReadyCheck: false,
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
    lazyConnect: false,
  });
  let down = false;
  redis.on("error", (error: Error) => {
    if (down) return;
    down = true;
    logger.warn({ err: error, connection: name }, "Redis unreachable; retrying (workers poll meanwhile)");
  });
  redis.on("ready", () => {
    if (down) logger.info({ connection: name }, "Redis reachable again");
    down = false;
  });
  return redis;
}

/** Closes a connection without waiting for queued commands to reach a Redis that may be down. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === "ready") await redis.quit().catch(() => redis.disconnect());
  else redis.disconnect();
}
