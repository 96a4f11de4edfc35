// The `berth dev --watch` supervisor with a stand-in server that takes a second to exit (as a real
// one draining its runs does): a change during a restart must not start a second server beside
// the one being started, and every change is picked up.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { makeTempDir } from "@berth-platform/testkit";
import { superviseDev } from "../src/dev-watch.js";

/** A server that announces itself like `berth dev`, logs its start and exit, and drains for 1 s. */
const STAND_IN = `import fs from "node:fs";
const log = process.env.BERTH_TEST_SERVER_LOG;
fs.appendFileSync(log, "start " + process.pid + " " + Date.now() + "\\n");
process.stdout.write("Berth agent server listening on http://127.0.0.1:59999\\n");
process.on("SIGTERM", () => setTimeout(() => {
  fs.appendFileSync(log, "exit " + process.pid + " " + Date.now() + "\\n");
  process.exit(0);
}, 1000));
setInterval(() => {}, 1000);
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("berth dev --watch supervisor", () => {
  const temp = makeTempDir();
  after(() => temp.cleanup());

  it("restarts one at a time: a change during a restart gets one more restart, never a second server", async () => {
    const project = path.join(temp.dir, "project");
    fs.mkdirSync(path.join(project, "src"), { recursive: true });
    const bin = path.join(temp.dir, "stand-in.mjs");
    fs.writeFileSync(bin, STAND_IN);
    const log = path.join(temp.dir, "servers.log");
    fs.writeFileSync(log, "");
    process.env.BERTH_TEST_SERVER_LOG = log;
    const events = () =>
      fs
        .readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split(" ") as ["start" | "exit", string, string]);
    const supervised = superviseDev({
      bin,
      args: [],
      projectDir: project,
      dataDir: path.join(project, ".berth"),
    });
    try {
      for (let i = 0; i < 200 && events().length === 0; i++) await sleep(50);
      fs.writeFileSync(path.join(project, "src/a.ts"), "export const a = 1;\n");
      // The debounce (300 ms) has fired: the first server is draining (1 s) when this lands.
      await sleep(500);
      fs.writeFileSync(path.join(project, "src/b.ts"), "export const b = 1;\n");
      const lastChange = Date.now();
      // The restart done: the 1 s drain, the stand-in's start, and time for a wrong second one.
      for (let i = 0; i < 200 && events().filter(([e]) => e === "start").length < 2; i++) await sleep(50);
      await sleep(2500);
      let alive = 0;
      let most = 0;
      for (const [event] of events()) {
        alive += event === "start" ? 1 : -1;
        most = Math.max(most, alive);
      }
      assert.equal(most, 1, `servers alive at once:\n${fs.readFileSync(log, "utf8")}`);
      assert.equal(alive, 1, "one server runs after the changes");
      // The server running was started after the last change: it has loaded both.
      const starts = events().filter(([e]) => e === "start");
      assert.ok(Number(starts.at(-1)?.[2]) > lastChange, fs.readFileSync(log, "utf8"));
    } finally {
      process.emit("SIGTERM", "SIGTERM");
      await supervised;
      // Whatever a failed run of this test left behind (processes this test started).
      const started = new Set(
        events()
          .filter(([e]) => e === "start")
          .map(([, pid]) => Number(pid)),
      );
      for (const [, pid] of events().filter(([e]) => e === "exit")) started.delete(Number(pid));
      for (const pid of started) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
      delete process.env.BERTH_TEST_SERVER_LOG;
    }
  });
});
