// Preloaded into a Berth process by prod.ts (`node --import`): counts what the process sends to
// PostgreSQL (statements: each `query` of a pg client is one round trip) and to Redis (commands by
// name, and pipelines/multis, each one round trip), and tags its PostgreSQL connections with
// application_name = $BERTH_BENCH_PG_APP so the bench can find their backends and read their CPU.
// Counts go to $BERTH_BENCH_IO_COUNTS (JSON) every 200 ms.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const out = process.env.BERTH_BENCH_IO_COUNTS;
const appName = process.env.BERTH_BENCH_PG_APP;
// Resolve the packages as the server does (from the repository's node_modules).
const require = createRequire(path.join(process.cwd(), "package.json"));
const counts = {
  pgQueries: 0,
  pgByVerb: {},
  pgByText: {},
  redisCommands: 0,
  redisByName: {},
  redisBatches: 0,
};
// With BERTH_BENCH_IO_TEXT=1 statements are also counted by their text (whitespace folded, 90 chars).
const byText = process.env.BERTH_BENCH_IO_TEXT === "1";

const pg = require("pg");
const originalQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(config, ...rest) {
  counts.pgQueries += 1;
  const text = typeof config === "string" ? config : (config?.text ?? "");
  const verb = (/^\s*(\w+)/.exec(text)?.[1] ?? "?").toLowerCase();
  counts.pgByVerb[verb] = (counts.pgByVerb[verb] ?? 0) + 1;
  if (byText) {
    const key = text.replace(/\s+/g, " ").trim().slice(0, 90);
    counts.pgByText[key] = (counts.pgByText[key] ?? 0) + 1;
  }
  return originalQuery.call(this, config, ...rest);
};
if (appName) {
  const OriginalPool = pg.Pool;
  pg.Pool = class TaggedPool extends OriginalPool {
    constructor(options = {}) {
      super({ ...options, application_name: appName });
    }
  };
}

const { Redis, Pipeline } = require("ioredis");
const originalSend = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function countedSend(command, ...rest) {
  const name = String(command?.name ?? "?").toLowerCase();
  // A pipeline's commands reach sendCommand once more each through exec: counted there as one batch.
  if (!["multi", "exec"].includes(name)) {
    counts.redisCommands += 1;
    counts.redisByName[name] = (counts.redisByName[name] ?? 0) + 1;
  }
  return originalSend.call(this, command, ...rest);
};
const originalExec = Pipeline.prototype.exec;
Pipeline.prototype.exec = function countedExec(...args) {
  counts.redisBatches += 1;
  return originalExec.apply(this, args);
};

if (out) {
  const write = () => {
    try {
      // Whole or not at all: the bench reads the file while this writes it.
      fs.writeFileSync(`${out}.tmp`, JSON.stringify(counts));
      fs.renameSync(`${out}.tmp`, out);
    } catch {}
  };
  setInterval(write, 200).unref();
  process.on("exit", write);
}
