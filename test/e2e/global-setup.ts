import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { isStale } from "../../scripts/stale.mjs";
import { launchChromiumServer, startApp } from "./app-process";

/**
 * What the production build is made of: `npm start`'s sources (scripts/start.mjs) and the files
 * that configure the build. The e2e run rebuilds when one changed after .next/BUILD_ID.
 */
const BUILD_INPUTS = [
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

/**
 * Builds the production app once for every e2e file when the build is missing or older than its
 * inputs (E2E_SKIP_BUILD=1 never builds, E2E_FORCE_BUILD=1 always does), then starts the ONE
 * app server and ONE Chromium the files share (test/e2e/harness.ts); both stop when the run ends.
 */
export default async function setup(project: TestProject) {
  const root = join(import.meta.dirname, "..", "..");
  // next build also reads the .env files there are (a missing one is no change).
  const envFiles = [".env", ".env.local", ".env.production", ".env.production.local"]
    .map((p) => join(root, p))
    .filter((p) => existsSync(p));
  const stale = isStale(join(root, ".next", "BUILD_ID"), [...BUILD_INPUTS.map((p) => join(root, p)), ...envFiles]);
  if (process.env.E2E_FORCE_BUILD === "1" || (process.env.E2E_SKIP_BUILD !== "1" && stale)) {
    const started = Date.now();
    const build = spawnSync(process.execPath, [join(root, "node_modules", "next", "dist", "bin", "next"), "build"], {
      cwd: root,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
      encoding: "utf8",
    });
    if (build.status !== 0) throw new Error(`next build failed:\n${build.stdout}\n${build.stderr}`);
    console.log(`e2e: next build took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } else if (stale) {
    console.log("e2e: E2E_SKIP_BUILD=1 with a build older than its sources: testing the old build");
  } else {
    console.log("e2e: the production build is newer than its sources; not rebuilding");
  }
  // The shared server: the environment the tests run in, without a token (token mode is a
  // server of its own: api.test.ts).
  const app = await startApp({ INSPECTOR_TOKEN: "" });
  const chromium = await launchChromiumServer();
  project.provide("e2eApp", { url: app.url, dbUrl: app.dbUrl });
  project.provide("e2eChromium", chromium.wsEndpoint());
  return async () => {
    await chromium.close();
    const logs = app.logs();
    await app.stop();
    if (process.env.E2E_SHARED_LOGS === "1") console.log(logs);
  };
}
