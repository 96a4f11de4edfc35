#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm run build`.
import { main } from "../dist/main.js";

main(process.argv).then(
  (code) => {
    if (typeof code === "number") process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`berth: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
