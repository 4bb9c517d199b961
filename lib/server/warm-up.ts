/**
 * Warms a freshly started production server from inside (see instrumentation.ts): once the server
 * listens, it asks for `/api/health` (opens and seeds the database), the newest run's page (or a
 * missing run's page when there is none) and its events route. Failures are ignored: warming only
 * saves the first visitor's time.
 */
const ATTEMPTS = 50;
const RETRY_MS = 100;

async function get(origin: string, path: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${origin}${path}`, { headers, signal: AbortSignal.timeout(30_000) });
}

async function warm(): Promise<void> {
  // `next start` records its address here once it listens.
  let origin = process.env.__NEXT_PRIVATE_ORIGIN;
  for (let i = 0; !origin && i < ATTEMPTS; i++) {
    await new Promise((r) => setTimeout(r, RETRY_MS));
    origin = process.env.__NEXT_PRIVATE_ORIGIN;
  }
  if (!origin) return;
  const token = process.env.INSPECTOR_TOKEN?.trim();
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await (await get(origin, "/api/health", headers)).arrayBuffer();
  const list = await get(origin, "/api/v1/runs?limit=1", headers);
  const newest = list.ok ? ((await list.json()) as { runs?: { id: string }[] }).runs?.[0]?.id : undefined;
  const id = encodeURIComponent(newest ?? "run_warm_up");
  await Promise.all(
    [`/runs/${id}`, `/api/runs/${id}/events`].map(async (path) => (await get(origin, path, headers)).arrayBuffer()),
  );
}

export function warmUp(): void {
  void warm().catch(() => undefined);
}
