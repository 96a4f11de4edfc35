// A PostgreSQL server of a test's own, for tests that stop and start it (the shared one, at
// DATABASE_URL, serves every test running at the same time and is never stopped). initdb refuses
// to run as root, so the server runs as the `postgres` OS user when the test runs as root.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { makeTempDir } from "@berth-platform/testkit";
import { freeFixedPort } from "./fixed-port.js";

const exec = promisify(execFile);
const BIN = "/usr/lib/postgresql/15/bin";

/** Whether a private PostgreSQL can be started here. */
export const CAN_RUN_PRIVATE_POSTGRES =
  fs.existsSync(path.join(BIN, "initdb")) && (process.getuid?.() !== 0 || fs.existsSync("/usr/sbin/runuser"));

/** One PostgreSQL cluster in a temp dir, on a fixed loopback port, trusting local connections. */
export class PrivatePostgres {
  private readonly temp = makeTempDir("berth-pg-");
  private readonly dataDir = path.join(this.temp.dir, "data");
  private readonly asRoot = process.getuid?.() === 0;
  port = 0;

  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** Runs a PostgreSQL program (as `postgres` when root), arguments as an array: no shell. */
  private run(program: string, args: string[]) {
    const bin = path.join(BIN, program);
    return this.asRoot
      ? exec("/usr/sbin/runuser", ["-u", "postgres", "--", bin, ...args], { cwd: os.tmpdir() })
      : exec(bin, args);
  }

  /** initdb on first use, then starts the server and waits until it accepts connections. */
  async start(): Promise<void> {
    if (this.port === 0) {
      this.port = await freeFixedPort("a private PostgreSQL");
      fs.chmodSync(this.temp.dir, 0o755);
      fs.mkdirSync(this.dataDir, { mode: 0o700 });
      if (this.asRoot) await exec("chown", ["postgres:postgres", this.dataDir]);
      await this.run("initdb", ["-D", this.dataDir, "-U", "postgres", "--auth=trust", "--no-sync"]);
    }
    await this.run("pg_ctl", [
      "start",
      "-D",
      this.dataDir,
      "-w",
      "-t",
      "60",
      "-l",
      path.join(this.dataDir, "server.log"),
      "-o",
      `-p ${this.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c fsync=off`,
    ]);
  }

  /** Stops the server as an operator's restart would (`-m fast`: sessions are terminated). */
  async stop(): Promise<void> {
    await this.run("pg_ctl", ["stop", "-D", this.dataDir, "-m", "fast", "-w", "-t", "60"]);
  }

  /** Stops the server if it runs and removes its files. */
  async dispose(): Promise<void> {
    await this.run("pg_ctl", ["stop", "-D", this.dataDir, "-m", "immediate", "-w"]).catch(() => {});
    this.temp.cleanup();
  }
}
