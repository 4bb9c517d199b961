#!/usr/bin/env node
// `npm run cli -- …` and the `reflect-inspector` bin: builds dist/cli.mjs first when it is missing
// or stale (scripts/build-cli.mjs), then runs it in this process — plain JavaScript, no tsx.
import { ensureCli } from "./build-cli.mjs";

let entry;
try {
  entry = ensureCli({ log: (line) => process.stderr.write(`${line}\n`) });
} catch (err) {
  // esbuild has printed what it could not build (file:line); say what that means, once.
  const reason = err instanceof Error ? err.message.split("\n")[0] : String(err);
  process.stderr.write(`error: could not build the CLI from lib/cli (${reason}); fix the source and retry\n`);
  process.exit(1);
}
const { runCliProcess } = await import(entry);
process.exitCode = await runCliProcess(process.argv.slice(2));
