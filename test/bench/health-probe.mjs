// The load bench's health probe, in its own process: `/api/health` timed by a client whose event
// loop does nothing else, so the figure is the server's answer time, not the load generator's own
// backlog (70 clients parsing responses on one thread). Prints one JSON line when done:
// { samples: [{ ms, ok, error? }], eventLoopDelay } — the last window the server reported.
// Usage: node health-probe.mjs <url> <durationMs> <everyMs> <deadlineMs>
const [url, durationMs, everyMs, deadlineMs] = process.argv.slice(2);
const until = performance.now() + Number(durationMs);
const samples = [];
let eventLoopDelay = null;
while (performance.now() < until) {
  const next = performance.now() + Number(everyMs);
  const start = performance.now();
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(Number(deadlineMs)) });
    const body = await res.json();
    const ms = performance.now() - start;
    if (body?.eventLoopDelay) eventLoopDelay = body.eventLoopDelay;
    samples.push(res.ok && body?.ok === true ? { ms, ok: true } : { ms, ok: false, error: `HTTP ${res.status}` });
  } catch (error) {
    const timedOut = error instanceof Error && error.name === "TimeoutError";
    samples.push({ ms: performance.now() - start, ok: false, error: timedOut ? "timed out" : String(error) });
  }
  await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
}
process.stdout.write(`${JSON.stringify({ samples, eventLoopDelay })}\n`);
