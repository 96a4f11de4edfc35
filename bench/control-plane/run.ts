// Control plane benchmark: GET deployment, list and create req/s against `berth up` (embedded
// SQLite), next to the framework floor (`GET /ok` on the same server). There is no peer to run
// here: the LangSmith control plane is a hosted service.
import { createBody, loadPhase, type PhaseResult } from "./scenarios.js";
import { rssMiB, startControlPlane } from "./server.js";

const quick = process.argv.includes("--quick");
const seconds = quick ? 2 : 8;
const connections = 50;
const TARGET_GET = 10_000;

function log(message: string): void {
  process.stdout.write(`${message}\n`);
}

async function main(): Promise<void> {
  log(
    `Control plane bench (${quick ? "quick" : "full"}): ${connections} connections, ${seconds} s a phase, autocannon 9`,
  );
  const server = await startControlPlane();
  try {
    const headers = { "x-api-key": server.apiKey, "content-type": "application/json" };
    const counter = { n: 0 };
    let id = "";
    for (let i = 0; i < 50; i += 1) {
      const response = await fetch(`${server.url}/v2/deployments`, {
        method: "POST",
        headers,
        body: createBody(counter),
      });
      if (response.status !== 201)
        throw new Error(`seeding failed: ${response.status} ${await response.text()}`);
      id = ((await response.json()) as { id: string }).id;
    }
    log(`seeded 50 deployments; server RSS ${rssMiB(server.process.pid)?.toFixed(0)} MiB`);
    const phases: PhaseResult[] = [];
    const run = async (name: string, options: Parameters<typeof loadPhase>[1]) => {
      log(`… ${name}`);
      const result = await loadPhase(name, options);
      phases.push(result);
      log(`  ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms`);
    };
    const base = { headers, connections, seconds };
    await run("GET /ok (floor)", { ...base, url: `${server.url}/ok` });
    await run("GET /v2/deployments/{id}", { ...base, url: `${server.url}/v2/deployments/${id}` });
    await run("GET /v2/deployments?limit=20", { ...base, url: `${server.url}/v2/deployments?limit=20` });
    await run("POST /v2/deployments", {
      ...base,
      url: `${server.url}/v2/deployments`,
      method: "POST",
      body: () => createBody(counter),
    });
    log("");
    log(
      `${"phase".padEnd(34)}${"req/s".padStart(9)}${"p50 ms".padStart(9)}${"p99 ms".padStart(9)}  non-2xx  errors`,
    );
    for (const p of phases) {
      log(
        `${p.name.padEnd(34)}${p.requestsPerSecond.toFixed(0).padStart(9)}${String(p.p50Ms).padStart(9)}${String(p.p99Ms).padStart(9)}  ${String(p.non2xx).padStart(7)}  ${String(p.errors).padStart(6)}`,
      );
    }
    const get = phases[1];
    const floor = phases[0];
    if (get && floor) {
      const verdict = get.requestsPerSecond >= TARGET_GET ? "PASS" : "MISS";
      log("");
      log(
        `target: GET deployment ≥ ${TARGET_GET} req/s on this 2-core machine — ${verdict} (${get.requestsPerSecond.toFixed(0)})`,
      );
      log(
        `GET deployment is ${((100 * get.requestsPerSecond) / floor.requestsPerSecond).toFixed(0)} % of the framework floor`,
      );
    }
    log(`server RSS at the end ${rssMiB(server.process.pid)?.toFixed(0)} MiB`);
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
