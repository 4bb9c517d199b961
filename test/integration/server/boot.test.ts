/**
 * What a production server does for itself: report how long its event loop waited
 * (lib/server/event-loop.ts, served by /api/health) and warm itself at boot (lib/server/warm-up.ts),
 * here against a real HTTP server standing in for `next start`.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createEventLoopMonitor, eventLoopDelay } from "@/lib/server/event-loop";
import { isWarmUpRequest, ROUTES_THAT_START_RUNS, WARM_UP_HEADER, warmUp } from "@/lib/server/warm-up";

describe("event-loop delay", () => {
  it("reports a synchronous stall in the window it happened in", async () => {
    // The window's end is the test's to call (the server's is a 5 s interval): no waiting it out.
    let closeWindow = () => {};
    const monitor = createEventLoopMonitor({ every: (close) => (closeWindow = close) });
    expect(monitor.read()).toBeNull(); // no window has completed yet
    await new Promise((r) => setTimeout(r, 100));
    const until = performance.now() + 300;
    while (performance.now() < until) {
      // a 300 ms synchronous task, as a search on the main thread was
    }
    await new Promise((r) => setTimeout(r, 50)); // the histogram's timer sees the stall
    closeWindow();
    const window = monitor.read();
    expect(window?.windowMs).toBe(5_000);
    expect(window?.maxMs).toBeGreaterThanOrEqual(200);
    expect(window?.p50Ms).toBeLessThan(window?.maxMs ?? 0);
  });

  it("serves the server's monitor: null until its first 5 s window completes", () => {
    expect(eventLoopDelay()).toBeNull();
  });
});

describe("warm-up at boot", () => {
  const saved = { origin: process.env.__NEXT_PRIVATE_ORIGIN, token: process.env.INSPECTOR_TOKEN };
  afterEach(() => {
    for (const [key, value] of [
      ["__NEXT_PRIVATE_ORIGIN", saved.origin],
      ["INSPECTOR_TOKEN", saved.token],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  async function server(runs: { id: string }[]) {
    const seen: { url: string; authorization?: string; warmUp?: string; warmUpKnown: boolean }[] = [];
    const srv = createServer((req: IncomingMessage, res) => {
      const warmUp = req.headers[WARM_UP_HEADER] as string | undefined;
      seen.push({
        url: req.url ?? "",
        authorization: req.headers.authorization,
        warmUp,
        // What the page decides while the request is served.
        warmUpKnown: isWarmUpRequest(warmUp ?? null),
      });
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(req.url?.startsWith("/api/v1/runs") ? { runs, nextCursor: null } : { ok: true }));
    });
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const origin = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
    return { seen, origin, close: () => new Promise((r) => srv.close(r)) };
  }

  it("waits for the server's address, then opens the database and the newest run's page and events", async () => {
    const s = await server([{ id: "run_newest" }]);
    delete process.env.__NEXT_PRIVATE_ORIGIN;
    delete process.env.INSPECTOR_TOKEN;
    // Each look for the address finds none until the third: no request goes out before it.
    const seenWhileWaiting: number[] = [];
    await warmUp({
      sleep: async () => {
        seenWhileWaiting.push(s.seen.length);
        if (seenWhileWaiting.length === 3) process.env.__NEXT_PRIVATE_ORIGIN = s.origin;
      },
    });
    expect(seenWhileWaiting).toEqual([0, 0, 0]);
    expect(s.seen.map((r) => r.url).sort()).toEqual(
      [
        "/api/health",
        "/api/runs/run_newest/events",
        "/api/v1/runs?limit=1",
        "/runs/run_newest",
        // The routes that start runs: loaded at boot, not by the first run while others wait.
        "/api/v1/experiments?limit=1",
        "/api/mcp",
        "/api/v1/banks/demo/recall",
        "/api/v1/banks/demo/reflect",
      ].sort(),
    );
    // Only reads: nothing a warm-up asks for starts a run or changes anything.
    expect(ROUTES_THAT_START_RUNS.every((path) => s.seen.some((r) => r.url === path))).toBe(true);
    expect(s.seen[0]?.url).toBe("/api/health");
    expect(s.seen.every((r) => r.authorization === undefined)).toBe(true);
    await s.close();
  });

  it("sends the token when one is set, and warms the run page's code when there is no run yet", async () => {
    const s = await server([]);
    process.env.__NEXT_PRIVATE_ORIGIN = s.origin;
    process.env.INSPECTOR_TOKEN = "secret-token";
    await warmUp();
    expect(s.seen).toHaveLength(4 + ROUTES_THAT_START_RUNS.length);
    expect(s.seen.map((r) => r.url)).toContain("/runs/run_warm_up");
    expect(s.seen.every((r) => r.authorization === "Bearer secret-token")).toBe(true);
    await s.close();
  });

  it("marks only its own page request as the warm-up, with a secret that ends with it", async () => {
    const s = await server([]);
    process.env.__NEXT_PRIVATE_ORIGIN = s.origin;
    delete process.env.INSPECTOR_TOKEN;
    await warmUp();
    const page = s.seen.find((r) => r.url === "/runs/run_warm_up");
    expect(page?.warmUp).toMatch(/^[0-9a-f-]{36}$/);
    expect(page?.warmUpKnown).toBe(true);
    // Only the page request carries it, and nothing else passes for it.
    expect(s.seen.filter((r) => r.warmUp !== undefined).map((r) => r.url)).toEqual(["/runs/run_warm_up"]);
    expect(isWarmUpRequest(null)).toBe(false);
    expect(isWarmUpRequest("")).toBe(false);
    // Once the warm-up is over, its secret no longer makes an empty run page.
    expect(isWarmUpRequest(page?.warmUp ?? null)).toBe(false);
    await s.close();
  });
});
