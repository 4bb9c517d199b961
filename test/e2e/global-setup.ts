import { spawnSync } from "node:child_process";
import { join } from "node:path";

/** Builds the production app once for every e2e file. */
export default function setup() {
  if (process.env.E2E_SKIP_BUILD === "1") return;
  const root = join(import.meta.dirname, "..", "..");
  const started = Date.now();
  const build = spawnSync(process.execPath, [join(root, "node_modules", "next", "dist", "bin", "next"), "build"], {
    cwd: root,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    encoding: "utf8",
  });
  if (build.status !== 0) throw new Error(`next build failed:\n${build.stdout}\n${build.stderr}`);
  console.log(`e2e: next build took ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
