import { type FloorMessage, type FloorPlan, measureFloor } from "./floor.js";
import type { GraphId } from "./workload.js";

// Entry point of the child process started by measureFloorInChild; speaks JSON lines on stdout.
function send(message: FloorMessage): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

const { graphId, dataDir, plan } = JSON.parse(process.argv[2] ?? "{}") as {
  graphId: GraphId;
  dataDir: string;
  plan: FloorPlan;
};

try {
  const result = await measureFloor(
    graphId,
    dataDir,
    plan,
    (line) => send({ kind: "progress", line }),
    (phase, phaseResult) => send({ kind: "phase", phase, result: phaseResult }),
  );
  send({ kind: "result", result });
} catch (error) {
  send({ kind: "error", message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exitCode = 1;
}
