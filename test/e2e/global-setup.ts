import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { appBuildStale, buildApp } from "../../scripts/app-build.mjs";
import { launchChromiumServer, startApp } from "./app-process";

/**
 * Builds the production app once for every e2e file when the build is missing or older than its
 * inputs (scripts/app-build.mjs; a plain `npm test` has built it already, beside the other tests;
 * E2E_SKIP_BUILD=1 never builds, E2E_FORCE_BUILD=1 always does), then starts the ONE
 * app server and ONE Chromium the files share (test/e2e/harness.ts); both stop when the run ends.
 */
export default async function setup(project: TestProject) {
  const root = join(import.meta.dirname, "..", "..");
  const stale = appBuildStale(root);
  if (process.env.E2E_FORCE_BUILD === "1" || (process.env.E2E_SKIP_BUILD !== "1" && stale)) {
    const build = await buildApp(root);
    if (build.status !== 0) throw new Error(`next build failed:\n${build.output}`);
    console.log(`e2e: next build took ${build.seconds.toFixed(1)} s`);
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
