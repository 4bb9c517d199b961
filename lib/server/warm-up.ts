/**
 * Warms a freshly started production server from inside (see instrumentation.ts): once the server
 * listens, it asks for `/api/health` (opens and seeds the database), the newest run's page (or a
 * missing run's page when there is none) and its events route, then loads the code of the routes
 * that start runs (experiments, MCP, recall, reflect) with requests that change nothing. Failures
 * are ignored: warming only saves the first visitor's time — and every other request's: a route's
 * first request compiles its modules on the event loop (about 1.5 s for MCP and experiments on a
 * loaded machine), and every request waits behind it (docs/performance.md).
 *
 * With no run yet, the missing run's page is asked for with a secret only this process knows: the
 * page then renders an empty run view instead of "not found", so the run view's code is loaded
 * and compiled before the first run is opened.
 */
import { randomUUID } from "node:crypto";
/** The header that carries the warm-up's secret. */
export const WARM_UP_HEADER = "x-inspector-warm-up";
const SECRET_ENV = "__INSPECTOR_WARM_UP_SECRET";

/** Whether a request is this process's warm-up (the header holds the secret it made at boot). */
export function isWarmUpRequest(header: string | null): boolean {
  const secret = process.env[SECRET_ENV];
  return Boolean(secret) && header === secret;
}

const ATTEMPTS = 50;
const RETRY_MS = 100;

async function get(origin: string, path: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${origin}${path}`, { headers, signal: AbortSignal.timeout(30_000) });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function warm(wait: (ms: number) => Promise<void>): Promise<void> {
  // `next start` records its address here once it listens.
  let origin = process.env.__NEXT_PRIVATE_ORIGIN;
  for (let i = 0; !origin && i < ATTEMPTS; i++) {
    await wait(RETRY_MS);
    origin = process.env.__NEXT_PRIVATE_ORIGIN;
  }
  if (!origin) return;
  const token = process.env.INSPECTOR_TOKEN?.trim();
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await (await get(origin, "/api/health", headers)).arrayBuffer();
  const list = await get(origin, "/api/v1/runs?limit=1", headers);
  const newest = list.ok ? ((await list.json()) as { runs?: { id: string }[] }).runs?.[0]?.id : undefined;
  const id = encodeURIComponent(newest ?? "run_warm_up");
  // process.env, not a module variable: the page is bundled apart from this module.
  const secret = randomUUID();
  process.env[SECRET_ENV] = secret;
  const page = get(origin, `/runs/${id}`, { ...headers, [WARM_UP_HEADER]: secret });
  await Promise.all(
    [page, get(origin, `/api/runs/${id}/events`, headers)].map(async (res) => (await res).arrayBuffer()),
  );
  delete process.env[SECRET_ENV];
  // Loads each route's code and changes nothing: a list, and 405 for the methods nobody uses.
  for (const path of ROUTES_THAT_START_RUNS) await (await get(origin, path, headers)).arrayBuffer();
}

/** Asked one after the other (GET): each loads its route's modules. */
export const ROUTES_THAT_START_RUNS = [
  "/api/v1/experiments?limit=1",
  "/api/mcp",
  "/api/v1/banks/demo/recall",
  "/api/v1/banks/demo/reflect",
] as const;

/**
 * Starts the warm-up; the promise settles (never rejects) once it is over. `sleep` is how it waits
 * between looks for the server's address (a test passes one that does not sleep).
 */
export function warmUp(options: { sleep?: (ms: number) => Promise<void> } = {}): Promise<void> {
  return warm(options.sleep ?? sleep).catch(() => undefined);
}
