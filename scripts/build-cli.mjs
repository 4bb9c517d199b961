// The CLI as plain JavaScript: lib/cli/main.ts bundled by esbuild into dist/, the project's
// dependencies left external (loaded from node_modules) except zod and drizzle-orm, bundled in
// (docs/performance.md#cli-start-up-round-2), so `npm run cli` never transpiles TypeScript at
// run time. Commands are split into chunks loaded on use: `--help` loads no database, model SDK
// or tracing code. Rebuilt only when stale (scripts/stale.mjs, as `npm start`):
// when a file the bundle was built from (dist/cli.inputs.json), the build settings or the
// lockfile (the bundled dependencies' versions) changed.
// `node scripts/build-cli.mjs` builds when stale and prints the entry's path; `--force` always builds.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { isStale } from "./stale.mjs";

const root = resolve(import.meta.dirname, "..");
const dist = join(root, "dist");
/** The entry: `node dist/cli.mjs --help`. It loads the build it names from dist/cli-build/<id>/. */
export const CLI_ENTRY = join(dist, "cli.mjs");
const INPUTS = join(dist, "cli.inputs.json");
const BUILDS = join(dist, "cli-build");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const BUNDLED = new Set(["zod", "drizzle-orm"]);
const EXTERNAL = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })
  .filter((name) => !BUNDLED.has(name))
  .flatMap((name) => [name, `${name}/*`]);
/** What every build depends on beyond the bundled sources. */
const SETTINGS = ["scripts/build-cli.mjs", "package.json", "package-lock.json", "tsconfig.json"].map((f) =>
  join(root, f),
);

function recordedInputs() {
  try {
    return JSON.parse(readFileSync(INPUTS, "utf8")).map((f) => join(root, f));
  } catch {
    return null;
  }
}

/** True when dist/cli.mjs is missing or older than any file it was built from. */
export function cliIsStale() {
  const inputs = recordedInputs();
  return inputs === null || isStale(CLI_ENTRY, [...SETTINGS, ...inputs]);
}

function entrySource(id) {
  return `#!/usr/bin/env node
// Built by scripts/build-cli.mjs from lib/cli/main.ts: do not edit.
import { realpathSync } from "node:fs";
import { runCli, runCliProcess } from "./cli-build/${id}/main.mjs";
export { runCli, runCliProcess };
if (process.argv[1] && realpathSync(process.argv[1]) === import.meta.filename) {
  runCliProcess(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
`;
}

/** Builds older than an hour that the entry no longer names (a process may still be loading a recent one). */
function removeOldBuilds(keep) {
  for (const id of readdirSync(BUILDS)) {
    const path = join(BUILDS, id);
    if (id !== keep && Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
  }
}

/**
 * Builds the CLI when stale (or always with `force`) and returns the entry's path. Synchronous, so
 * a test helper can call it at load; concurrent builds are safe (each writes its own folder, then
 * renames a new entry into place).
 */
export function ensureCli({ force = false, log = () => {} } = {}) {
  if (!force && !cliIsStale()) return CLI_ENTRY;
  log("Building the CLI (dist/cli.mjs)…");
  // esbuild is loaded only when a build is needed: a fresh build costs no esbuild start-up.
  const esbuild = createRequire(import.meta.url)("esbuild");
  const id = `${Date.now().toString(36)}-${process.pid}`;
  mkdirSync(BUILDS, { recursive: true });
  const result = esbuild.buildSync({
    absWorkingDir: root,
    entryPoints: ["lib/cli/main.ts"],
    outdir: join(BUILDS, id),
    outExtension: { ".js": ".mjs" },
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // Dependencies load from node_modules, except zod and drizzle-orm: bundled, they are a few
    // chunks instead of some 200 files for the ESM loader to resolve and read at every start.
    external: EXTERNAL,
    tsconfig: "tsconfig.json",
    metafile: true,
    logLevel: "error",
    legalComments: "none",
  });
  const inputs = Object.keys(result.metafile.inputs).filter((f) => !f.startsWith("node_modules/"));
  const tmp = `.${id}.tmp`;
  writeFileSync(join(dist, `inputs${tmp}`), JSON.stringify(inputs));
  writeFileSync(join(dist, `cli${tmp}`), entrySource(id), { mode: 0o755 });
  renameSync(join(dist, `inputs${tmp}`), INPUTS);
  renameSync(join(dist, `cli${tmp}`), CLI_ENTRY);
  removeOldBuilds(id);
  return CLI_ENTRY;
}

if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) {
  console.log(ensureCli({ force: process.argv.includes("--force") }));
}
