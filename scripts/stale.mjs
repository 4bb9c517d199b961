// The stale-check `npm start` and `npm run cli` share: a build is stale when any of its sources
// (files, or folders walked without node_modules and dot-entries) changed after it was built.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** The newest modification time under `path` (a file or a folder); 0 when it does not exist. */
export function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    newest = Math.max(newest, newestMtime(join(path, entry.name)));
  }
  return newest;
}

/** True when `built` is missing or older than one of `sources`; a missing source counts as changed. */
export function isStale(built, sources) {
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  return sources.some((source) => !existsSync(source) || newestMtime(source) > builtAt);
}
