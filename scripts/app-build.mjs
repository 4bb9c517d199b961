// The production build's stale-check, shared by `npm start`, `npm test` and the e2e setup: the
// build (.next/BUILD_ID) is stale when it is missing or older than one of the files it is made of.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { isStale } from "./stale.mjs";

/** What the production build is made of: the app's sources and the files that configure the build. */
export const BUILD_INPUTS = [
  "app",
  "components",
  "lib",
  "db",
  "public",
  "proxy.ts",
  "instrumentation.ts",
  "next.config.mjs",
  "postcss.config.mjs",
  "tsconfig.json",
  "package.json",
  "package-lock.json",
];

/** `next build` also reads the .env files there are (a missing one is no change). */
const ENV_FILES = [".env", ".env.local", ".env.production", ".env.production.local"];

/** True when the production build under `root` is missing or older than one of its inputs. */
export function appBuildStale(root) {
  const envFiles = ENV_FILES.map((p) => join(root, p)).filter((p) => existsSync(p));
  return isStale(join(root, ".next", "BUILD_ID"), [...BUILD_INPUTS.map((p) => join(root, p)), ...envFiles]);
}

/**
 * Runs `next build` under `root` without blocking the event loop (so other work can run beside
 * it). Resolves with its exit status, its seconds and its output; `stdio: "inherit"` prints as it goes.
 */
export function buildApp(root, { inherit = false } = {}) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, "node_modules", "next", "dist", "bin", "next"), "build"], {
      cwd: root,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
      stdio: inherit ? "inherit" : ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout?.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr?.on("data", (chunk) => {
      output += chunk;
    });
    child.on("error", (err) => resolve({ status: 1, seconds: 0, output: String(err) }));
    child.on("close", (status) => resolve({ status: status ?? 1, seconds: (Date.now() - started) / 1000, output }));
  });
}
