// `npm test`: every test layer (unit, integration, e2e) in one vitest run, then a plain
// "N passed, N failed" line that any CI can read. Installs Debian's Chromium for e2e when missing.
// `npm run test:unit|test:integration|test:e2e` pass `--project`: a run without e2e needs no
// Chromium, and the unit tier needs no sqld either.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ensureSqld } from "./sqld.mjs";

const root = new URL("..", import.meta.url).pathname;
const startedAt = Date.now();
const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** The projects named with `--project x` / `--project=x`; none named means every project. */
function selectedProjects(argv) {
  const named = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--project" && argv[i + 1] !== undefined) named.push(argv[++i]);
    else if (argv[i].startsWith("--project=")) named.push(argv[i].slice("--project=".length));
  }
  return named;
}
const projects = selectedProjects(process.argv.slice(2));
const runs = (project) => projects.length === 0 || projects.includes(project);

if (runs("e2e") && !existsSync(chromium)) {
  if (process.getuid?.() === 0) {
    console.log("Installing Debian's chromium for the e2e tests…");
    const update = spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit" });
    const install = spawnSync("apt-get", ["install", "-y", "-qq", "chromium"], {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    if (update.status !== 0 || install.status !== 0) {
      console.error("Could not install chromium: run `apt-get install -y chromium` and retry.");
      process.exit(1);
    }
  } else {
    console.error("e2e tests need Chromium: run `sudo apt-get install -y chromium` (or set CHROMIUM_PATH) and retry.");
    process.exit(1);
  }
}

// The server-mode tests run against a real libSQL server (sqld); SKIP_SQLD=1 opts out.
if (process.env.SKIP_SQLD !== "1" && (runs("integration") || runs("e2e"))) {
  try {
    ensureSqld();
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  }
}

const tmp = join(root, "test", ".tmp");
mkdirSync(tmp, { recursive: true });
const report = join(tmp, "vitest-report.json");
rmSync(report, { force: true });

const args = [
  "vitest",
  "run",
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${report}`,
  ...process.argv.slice(2),
];
const run = spawnSync("npx", args, { cwd: root, stdio: "inherit" });

let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(report)) {
  const summary = JSON.parse(readFileSync(report, "utf8"));
  passed = summary.numPassedTests ?? 0;
  // A file that fails to load has no failed tests but is a failure all the same.
  failed = summary.numFailedTests || summary.numFailedTestSuites || 0;
  skipped = (summary.numPendingTests ?? 0) + (summary.numTodoTests ?? 0);
} else {
  failed = 1;
}
console.log(`\ntests took ${Math.round((Date.now() - startedAt) / 1000)} s`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(run.status === 0 && failed === 0 ? 0 : 1);
