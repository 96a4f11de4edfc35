// Deploy benchmark: how long `berth up` takes from a create (or a secrets PATCH) to a DEPLOYED
// revision, on its embedded local runtime. There is no peer to run here: LangSmith Cloud is a
// hosted service that cannot be reached from this machine.
import path from "node:path";
import { packDirectory } from "@berth-platform/testkit";
import { Api, type BerthUp, root, startBerthUp } from "./server.js";

const RUNS = 5;
const POLL_MS = 50;
const TARGET_CREATE_S = 10;
const TARGET_PATCH_S = 5;
const PROJECT = path.join(root, "test/fixtures/deploy-project");
const SETTLED = ["DEPLOYED", "CREATE_FAILED", "BUILD_FAILED", "DEPLOY_FAILED", "INTERRUPTED", "SKIPPED"];

function log(message: string): void {
  process.stdout.write(`${message}\n`);
}

/** Seconds of one measured deploy, by phase (absent when its log lines are not there). */
type Phases = Record<string, number>;

/** Log lines that start or end a phase, in the revision's build and deploy logs. */
const MARKERS: ReadonlyArray<[name: string, type: "build" | "deploy", pattern: RegExp]> = [
  ["buildStart", "build", /^Build of revision \S+ started/],
  ["installStart", "build", /^\$ /],
  ["installEnd", "build", /^install finished in/],
  ["buildEnd", "build", /^(Build \S+ finished|Reusing build )/],
  ["agentStart", "deploy", /^Starting the agent server on port/],
  ["healthy", "deploy", /^Agent server is healthy\./],
  ["drained", "deploy", /^Previous revision stopped after/],
  ["deployed", "deploy", /^Revision \S+ is DEPLOYED at/],
];

class Bench {
  readonly api: Api;

  constructor(readonly server: BerthUp) {
    this.api = new Api(server.url, server.apiKey);
  }

  /** Polls the revision until it settles; fails unless DEPLOYED. Returns when it was seen DEPLOYED. */
  async waitDeployed(deploymentId: string, revisionId: string, timeoutMs = 120_000): Promise<number> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const revision = await this.api.expect(
        200,
        "GET",
        `/v2/deployments/${deploymentId}/revisions/${revisionId}`,
      );
      if (revision.status === "DEPLOYED") return Date.now();
      if (SETTLED.includes(revision.status) || Date.now() > until) {
        const logs = await this.logs(deploymentId, revisionId);
        const text = logs.map((l) => `[${l.type}] ${l.message}`).join("\n");
        throw new Error(`revision ${revisionId} is ${revision.status}, not DEPLOYED\n${text}`);
      }
      await sleep(POLL_MS);
    }
  }

  async logs(
    deploymentId: string,
    revisionId: string,
  ): Promise<Array<{ type: "build" | "deploy"; timestamp: number; message: string }>> {
    const lines = [];
    for (const type of ["build", "deploy"] as const) {
      const body = await this.api.expect(
        200,
        "GET",
        `/v2/deployments/${deploymentId}/revisions/${revisionId}/logs?type=${type}&limit=1000`,
      );
      for (const entry of body.logs ?? []) {
        lines.push({ type, timestamp: Number(entry.timestamp), message: String(entry.message) });
      }
    }
    return lines;
  }

  /** Timestamps (epoch ms) of the phase markers; waits for the log writer to flush the last line. */
  async marks(deploymentId: string, revisionId: string): Promise<Record<string, number>> {
    for (let attempt = 0; ; attempt += 1) {
      const lines = await this.logs(deploymentId, revisionId);
      const marks: Record<string, number> = {};
      for (const [name, type, pattern] of MARKERS) {
        const line = lines.find((l) => l.type === type && pattern.test(l.message));
        if (line) marks[name] = line.timestamp;
      }
      if (marks.deployed !== undefined || attempt >= 50) return marks;
      await sleep(100);
    }
  }

  /** Deletes a deployment (stopping its agent server) and waits until it is gone. */
  async remove(deploymentId: string): Promise<void> {
    await this.api.expect(204, "DELETE", `/v2/deployments/${deploymentId}`);
    const until = Date.now() + 60_000;
    while ((await this.api.call("GET", `/v2/deployments/${deploymentId}`)).status !== 404) {
      if (Date.now() > until) throw new Error(`deployment ${deploymentId} was not deleted`);
      await sleep(POLL_MS);
    }
  }

  /** create → upload → PATCH → DEPLOYED of the fixture project, as `langgraph deploy --remote` does. */
  async deploySource(name: string): Promise<{ id: string; phases: Phases }> {
    const archive = packDirectory(PROJECT);
    const t0 = Date.now();
    const created = await this.api.expect(201, "POST", "/v2/deployments", {
      name,
      source: "internal_source",
      source_config: {},
      source_revision_config: {},
      secrets: [],
    });
    const minted = await this.api.expect(200, "POST", `/v2/deployments/${created.id}/upload-url`);
    const put = await fetch(minted.upload_url, {
      method: "PUT",
      headers: { "Content-Type": "application/gzip" },
      body: archive,
    });
    if (put.status !== 200) throw new Error(`upload failed: ${put.status} ${await put.text()}`);
    const patched = await this.api.expect(200, "PATCH", `/v2/deployments/${created.id}`, {
      source_revision_config: { source_tarball_path: minted.object_path, graph_config_path: "graph.json" },
    });
    const uploaded = Date.now();
    const done = await this.waitDeployed(created.id, patched.latest_revision_id);
    const marks = await this.marks(created.id, patched.latest_revision_id);
    return {
      id: created.id,
      phases: { total: seconds(t0, done), upload: seconds(t0, uploaded), ...phasesOf(t0, marks) },
    };
  }

  /** A secrets PATCH → its new revision DEPLOYED (the build is reused, the old server drains). */
  async patchSecret(deploymentId: string, value: string): Promise<Phases> {
    const t0 = Date.now();
    const patched = await this.api.expect(200, "PATCH", `/v2/deployments/${deploymentId}`, {
      secrets: [{ name: "GREETING", value }],
    });
    const done = await this.waitDeployed(deploymentId, patched.latest_revision_id);
    const marks = await this.marks(deploymentId, patched.latest_revision_id);
    return { total: seconds(t0, done), ...phasesOf(t0, marks) };
  }

  /** create → DEPLOYED of the bundled react-agent template (dependencies linked, no install). */
  async deployTemplate(name: string): Promise<{ id: string; phases: Phases }> {
    const t0 = Date.now();
    const created = await this.api.expect(201, "POST", "/v2/deployments", {
      name,
      source: "internal_template",
      source_config: { template_id: "react-agent" },
      source_revision_config: {},
      secrets: [],
    });
    const done = await this.waitDeployed(created.id, created.latest_revision_id);
    const marks = await this.marks(created.id, created.latest_revision_id);
    return { id: created.id, phases: { total: seconds(t0, done), ...phasesOf(t0, marks) } };
  }
}

/** Phases from the log markers, in seconds; `t0` is when the client sent its first request. */
function phasesOf(t0: number, m: Record<string, number>): Phases {
  const phases: Phases = {};
  const put = (name: string, from: number | undefined, to: number | undefined) => {
    if (from !== undefined && to !== undefined) phases[name] = seconds(from, to);
  };
  put("to BUILDING", t0, m.buildStart);
  put("install", m.installStart, m.installEnd);
  put("build", m.buildStart, m.buildEnd);
  put("deploy", m.agentStart, m.healthy);
  put("drain", m.healthy, m.drained);
  return phases;
}

function seconds(from: number, to: number): number {
  return (to - from) / 1000;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function describe(phases: Phases): string {
  const { total, ...rest } = phases;
  const parts = Object.entries(rest).map(([name, s]) => `${name} ${s.toFixed(2)}`);
  return `total ${total?.toFixed(2)} s (${parts.join(", ")})`;
}

/** One scenario's runs, and its target on the total if it has one. */
interface Scenario {
  name: string;
  runs: Phases[];
  targetS?: number;
}

function report(scenarios: Scenario[]): void {
  log("");
  log(
    `${"scenario".padEnd(38)}${"phase".padEnd(13)}${"median s".padStart(9)}${"min s".padStart(9)}${"max s".padStart(9)}  target`,
  );
  for (const scenario of scenarios) {
    const names = [...new Set(scenario.runs.flatMap((r) => Object.keys(r)))];
    names.sort((a, b) => (a === "total" ? -1 : b === "total" ? 1 : 0));
    for (const phase of names) {
      const values = scenario.runs.map((r) => r[phase]).filter((v): v is number => v !== undefined);
      const med = median(values);
      let target = "";
      if (phase === "total" && scenario.targetS !== undefined) {
        const limit = scenario.targetS;
        const within = values.filter((v) => v <= limit).length;
        target = `≤ ${limit} s  ${med <= limit ? "PASS" : "MISS"} (median; ${within}/${values.length} runs within)`;
      }
      const cells = [med, Math.min(...values), Math.max(...values)].map((v) => v.toFixed(2).padStart(9));
      const label = (phase === "total" ? scenario.name : "").padEnd(38);
      log(`${label}${phase.padEnd(13)}${cells.join("")}  ${target}`.trimEnd());
    }
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  log(`Deploy bench: ${RUNS} runs a scenario against the built \`berth up --no-example\` (local runtime)`);
  const server = await startBerthUp();
  const stopOnSignal = () => {
    void server.stop().finally(() => process.exit(130));
  };
  process.once("SIGINT", stopOnSignal);
  process.once("SIGTERM", stopOnSignal);
  try {
    const bench = new Bench(server);
    const source: Phases[] = [];
    const patch: Phases[] = [];
    const template: Phases[] = [];

    log("… warm-up: one internal_source deploy (fills the npm cache for npm ci --prefer-offline)");
    const warm = await bench.deploySource("bench-warm-up");
    log(`  warm-up ${describe(warm.phases)}`);
    await bench.remove(warm.id);

    log(`… internal_source create → DEPLOYED (test/fixtures/deploy-project, npm ci, warm cache)`);
    let kept = "";
    for (let i = 1; i <= RUNS; i += 1) {
      const { id, phases } = await bench.deploySource(`bench-source-${i}`);
      log(`  #${i} ${describe(phases)}`);
      source.push(phases);
      if (i < RUNS) await bench.remove(id);
      else kept = id;
    }

    log("… secrets PATCH → new revision DEPLOYED (build reused, the old agent server drains)");
    for (let i = 1; i <= RUNS; i += 1) {
      const phases = await bench.patchSecret(kept, `v${i}`);
      log(`  #${i} ${describe(phases)}`);
      patch.push(phases);
    }
    await bench.remove(kept);

    log("… internal_template create → DEPLOYED (react-agent, dependencies linked)");
    for (let i = 1; i <= RUNS; i += 1) {
      const { id, phases } = await bench.deployTemplate(`bench-template-${i}`);
      log(`  #${i} ${describe(phases)}`);
      template.push(phases);
      await bench.remove(id);
    }

    report([
      { name: "create → DEPLOYED (internal_source)", runs: source, targetS: TARGET_CREATE_S },
      { name: "secrets PATCH → DEPLOYED", runs: patch, targetS: TARGET_PATCH_S },
      { name: "create → DEPLOYED (internal_template)", runs: template },
    ]);
    log("");
    log(
      "Phases come from the revision's build/deploy log timestamps: to BUILDING = first request → build started; " +
        "install = npm ci; build = build started → finished (or reused); deploy = agent server start → healthy; " +
        "drain = new server healthy → old server stopped. total is what a polling client sees (50 ms polls).",
    );
    log(
      "No peer figure measured: LangSmith Cloud is not reachable from here. For scale only, the reference notes " +
        "(/work/shared/reference/control-plane.md §5.2) record an observed ~14 min first deploy of a github " +
        "source on the cloud, and `langgraph deploy --remote` polls a remote build for up to 900 s.",
    );
    log(`bench took ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    process.off("SIGINT", stopOnSignal);
    process.off("SIGTERM", stopOnSignal);
    await server.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
