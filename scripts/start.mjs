// `npm start`: build when the production build is missing or older than the sources, then serve
// on 127.0.0.1:3000 (HOST/PORT override). The app migrates and seeds the demo bank on first use.
// Listening beyond loopback requires INSPECTOR_TOKEN, and a token must be at least 32 characters:
// both are checked first, before any build work.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appBuildStale } from "./app-build.mjs";
import { ensureCli } from "./build-cli.mjs";
import { isLoopback } from "./loopback.mjs";

const host = process.env.HOST || "127.0.0.1";
const port = process.env.PORT ?? "3000";

const MIN_TOKEN_CHARS = 32;
const token = process.env.INSPECTOR_TOKEN?.trim() ?? "";

if (!isLoopback(host) && !token) {
  console.error(`Refusing to listen on ${host}: set INSPECTOR_TOKEN to require a token, or bind HOST=127.0.0.1.`);
  process.exit(1);
}

if (token && token.length < MIN_TOKEN_CHARS) {
  console.error(
    `Refusing to start: INSPECTOR_TOKEN has ${token.length} characters, it needs at least ${MIN_TOKEN_CHARS}. ` +
      `A fresh one: INSPECTOR_TOKEN=${randomBytes(24).toString("base64url")}`,
  );
  process.exit(1);
}

if (!isLoopback(host) && !process.env.INSPECTOR_PUBLIC_URL) {
  console.warn(
    "Note: only loopback names and the host of INSPECTOR_PUBLIC_URL are served (other Host headers get 403): " +
      "set INSPECTOR_PUBLIC_URL to the address people open, e.g. http://inspector.lan:3000.",
  );
}

const root = new URL("..", import.meta.url).pathname;

// Stale when a source or a build setting (next.config, tsconfig, .env…) changed after the build.
if (appBuildStale(root)) {
  console.log("Building the app (first start or sources changed)…");
  const build = spawnSync("npx", ["next", "build"], { cwd: root, stdio: "inherit" });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// The CLI (`npm run cli`) by the same stale-check: a fresh bundle is left alone.
ensureCli({ log: console.log });

console.log(`Reflect Inspector on http://${host}:${port}`);
const server = spawnSync("npx", ["next", "start", "-H", host, "-p", port], { cwd: root, stdio: "inherit" });
process.exit(server.status ?? 0);
