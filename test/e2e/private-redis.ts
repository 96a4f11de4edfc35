// A Redis server of a test's own, for tests that stop and restart Redis. The shared one CI starts
// (REDIS_URL) is used by test files running at the same time: stopping it made them lose their
// stream logs mid-test (a Redis restarted with `--save ""` comes back empty).
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import { makeTempDir } from "@berth-platform/testkit";
import { Redis } from "ioredis";
import { freeFixedPort } from "./fixed-port.js";

export const REDIS_SERVER = "/usr/bin/redis-server";

/** Whether a private Redis can be started here. */
export const CAN_RUN_PRIVATE_REDIS = fs.existsSync(REDIS_SERVER);

/** One redis-server process on a fixed port, which can be stopped and started again. */
export class PrivateRedis {
  private child: ChildProcess | undefined;
  private readonly temp = makeTempDir("berth-redis-");
  port = 0;

  /** `password`: the `default` user's (`--requirepass`); without one it has none. */
  constructor(private readonly password?: string) {}

  get url(): string {
    return this.password
      ? `redis://:${encodeURIComponent(this.password)}@127.0.0.1:${this.port}`
      : `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server (on the same port as before after a stop) and waits until it answers. */
  async start(): Promise<void> {
    if (this.port === 0) this.port = await freeFixedPort("a private Redis");
    const child = spawn(
      REDIS_SERVER,
      [
        "--port",
        String(this.port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        this.temp.dir,
        ...(this.password ? ["--requirepass", this.password] : []),
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    this.child = child;
    const deadline = Date.now() + 10_000;
    while (!(await this.answers())) {
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`redis-server on port ${this.port} did not start: ${stderr.trim()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Whether the server answers a PING now. */
  async answers(): Promise<boolean> {
    const client = new Redis(this.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    client.on("error", () => {});
    try {
      await client.connect();
      return (await client.ping()) === "PONG";
    } catch {
      return false;
    } finally {
      client.disconnect();
    }
  }

  /** Stops the server as `SHUTDOWN NOSAVE` would: its data is gone. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }

  /** Stops the server and removes its directory. */
  async dispose(): Promise<void> {
    await this.stop();
    this.temp.cleanup();
  }
}
