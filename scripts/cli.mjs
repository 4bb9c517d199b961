#!/usr/bin/env node
// `npm run cli -- …` and the `reflect-inspector` bin: builds dist/cli.mjs first when it is missing
// or stale (scripts/build-cli.mjs), then runs it in this process — plain JavaScript, no tsx.
import { ensureCli } from "./build-cli.mjs";

const entry = ensureCli({ log: (line) => process.stderr.write(`${line}\n`) });
const { runCli } = await import(entry);
process.exitCode = await runCli(process.argv.slice(2));
