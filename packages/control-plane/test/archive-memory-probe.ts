// Child process of archive-memory.test.ts: extracts one archive and reports the outcome and the
// process's peak resident memory (getrusage maxRSS), so the parent measures this extraction alone.
import { extractSourceArchive } from "../src/runtime/local/archive.js";

const [archive, dest, limits] = process.argv.slice(2);
let outcome: string;
try {
  const totals = await extractSourceArchive(archive ?? "", dest ?? "", JSON.parse(limits ?? "{}"));
  outcome = `extracted ${totals.entries} entries, ${totals.bytes} bytes`;
} catch (error) {
  outcome = `refused: ${(error as Error).message}`;
}
process.stdout.write(`${JSON.stringify({ outcome, maxRssBytes: process.resourceUsage().maxRSS * 1024 })}\n`);
