// A Redis stream broker for tests, on its own pair of connections (a process's), and its close.
import pino from "pino";
import { closeRedis, connectRedis } from "../src/redis/connection.js";
import { RedisStreamBroker } from "../src/stream/redis.js";

const logger = pino({ level: "silent" });

export function testBroker(url: string, options: { prefix: string; name: string; maxEvents: number }) {
  const pub = connectRedis(url, options.name, logger);
  const sub = connectRedis(url, `${options.name}-sub`, logger);
  const instance = new RedisStreamBroker(pub, sub, {
    prefix: options.prefix,
    ttlMs: 60_000,
    runTtlMs: 60_000,
    maxEvents: options.maxEvents,
    logger,
  });
  return {
    instance,
    close: async () => {
      instance.close();
      await Promise.all([closeRedis(pub), closeRedis(sub)]);
    },
  };
}
