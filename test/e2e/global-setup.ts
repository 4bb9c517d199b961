import { spawnSync } from "node:child_process";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { launchChromiumServer, startApp } from "./app-process";

/**
 * Builds the production app once for every e2e file, then starts the ONE app server and ONE
 * Chromium the files share (test/e2e/harness.ts); both stop when the run ends.
 */
export default async function setup(project: TestProject) {
  const root = join(import.meta.dirname, "..", "..");
  if (process.env.E2E_SKIP_BUILD !== "1") {
    const started = Date.now();
    const build = spawnSync(process.execPath, [join(root, "node_modules", "next", "dist", "bin", "next"), "build"], {
      cwd: root,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
      encoding: "utf8",
    });
    if (build.status !== 0) throw new Error(`next build failed:\n${build.stdout}\n${build.stderr}`);
    console.log(`e2e: next build took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  // The shared server: the environment the tests run in, as `useAppAndBrowser()` without settings.
  const app = await startApp();
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
