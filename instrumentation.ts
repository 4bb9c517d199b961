/**
 * Next.js calls `register` once when the server starts. In production it warms the server: the
 * database is opened (migrated, seeded) and the run page's code is loaded and rendered once, so
 * that the first person to open a run does not wait for that (a 5k-event run's first visit went
 * from about 1 s to the time of a repeat visit).
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // TRACE/TRACK/CONNECT: a 405 from the node server itself (Next cannot build a Request for them).
  const { installMethodGuard } = await import("./lib/server/http/http-methods");
  installMethodGuard((await import("node:http")).Server);
  if (process.env.NODE_ENV !== "production") return;
  const { warmUp } = await import("./lib/server/runtime/warm-up");
  warmUp();
}
