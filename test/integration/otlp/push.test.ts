/**
 * OTLP export of stored runs: the trace built from the database and the push of every finished
 * run to an OTLP/HTTP collector (a loopback server standing in for Phoenix or a Collector).
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Db } from "@/db/client";
import { getRun } from "@/db/runs";
import { createOfflineModel } from "@/lib/llm";
import { ensureDemoBank } from "@/lib/server/db";
import { getRunOtlp, pushRunTrace, tracesEndpoint } from "@/lib/server/otlp-push";
import { startRun } from "@/lib/server/runs";
import type { OtlpTrace } from "@/lib/timeline/otlp";
import { openTempDb } from "../db/temp-db";

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: OtlpTrace;
}

let db: Db;
let cleanup: () => void;
let server: Server;
let collectorUrl: string;
let received: Received[] = [];
let reply = 200;

beforeAll(async () => {
  ({ db, cleanup } = await openTempDb("otlp-push"));
  await ensureDemoBank(db);
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => {
      text += c;
    });
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body: JSON.parse(text) as OtlpTrace });
      res.writeHead(reply, { "content-type": "application/json" }).end(reply === 200 ? "{}" : "collector down");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  collectorUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  cleanup();
});
afterEach(() => {
  received = [];
  reply = 200;
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

async function finishedRun(question = "What did we decide about the launch date?") {
  const { runId, finished } = await startRun(
    db,
    { mode: "synthesize", bankId: "demo", question },
    { model: createOfflineModel() },
  );
  await finished;
  return runId;
}

async function waitFor<T>(fn: () => T | undefined, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("OTLP export of a stored run", () => {
  it("builds one trace whose root span carries the run's answer and times from its creation", async () => {
    const runId = await finishedRun();
    const run = (await getRun(db, runId))!;
    const trace = (await getRunOtlp(db, runId, {}))!;
    const spans = trace.resourceSpans[0]!.scopeSpans[0]!.spans;
    const root = spans.find((s) => !s.parentSpanId)!;
    expect(root.attributes).toContainEqual({ key: "reflect.run.id", value: { stringValue: runId } });
    expect(root.attributes).toContainEqual({ key: "output.value", value: { stringValue: run.answer } });
    const startMs = Number(BigInt(root.startTimeUnixNano) / 1_000_000n);
    expect(Math.abs(startMs - Date.parse(run.createdAt))).toBeLessThan(5_000);
    expect(spans.some((s) => s.name.startsWith("chat "))).toBe(true);
  });

  it("returns null for an unknown run", async () => {
    expect(await getRunOtlp(db, "run_nope", {})).toBeNull();
  });
});

describe("push to an OTLP/HTTP collector", () => {
  it("derives the traces endpoint from the standard variables", () => {
    expect(tracesEndpoint({})).toBeNull();
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://h:4318/" })).toBe("http://h:4318/v1/traces");
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://h/x", OTEL_EXPORTER_OTLP_ENDPOINT: "y" })).toBe(
      "http://h/x",
    );
  });

  it("posts the trace as JSON to /v1/traces with the configured headers", async () => {
    const runId = await finishedRun();
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl, OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20t0k" };
    expect(await pushRunTrace(db, runId, env)).toBe(true);
    expect(received).toHaveLength(1);
    const [hit] = received;
    expect(hit!.path).toBe("/v1/traces");
    expect(hit!.headers["content-type"]).toBe("application/json");
    expect(hit!.headers.authorization).toBe("Bearer t0k");
    expect(hit!.body).toEqual(await getRunOtlp(db, runId, env));
  });

  it("does nothing without an endpoint", async () => {
    const runId = await finishedRun();
    expect(await pushRunTrace(db, runId, {})).toBe(false);
    expect(received).toHaveLength(0);
  });

  it("reports a collector's refusal", async () => {
    reply = 503;
    const runId = await finishedRun();
    await expect(pushRunTrace(db, runId, { OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl })).rejects.toThrow(/HTTP 503/);
  });

  it("pushes every finished run by itself when OTEL_EXPORTER_OTLP_ENDPOINT is set", async () => {
    vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", collectorUrl);
    const runId = await finishedRun();
    const hit = await waitFor(() => received[0]);
    const root = hit.body.resourceSpans[0]!.scopeSpans[0]!.spans.find((s) => !s.parentSpanId)!;
    expect(root.attributes).toContainEqual({ key: "reflect.run.id", value: { stringValue: runId } });
    expect(root.attributes.find((a) => a.key === "reflect.status")?.value).toEqual({ stringValue: "done" });
  });

  it("keeps the run's result when the collector is down, logging the failure", async () => {
    vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", collectorUrl);
    reply = 500;
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const runId = await finishedRun();
    expect((await getRun(db, runId))!.status).toBe("done");
    await waitFor(() => (logged.mock.calls.length > 0 ? true : undefined));
    expect(String(logged.mock.calls[0]![0])).toMatch(new RegExp(`OTLP export of run ${runId} failed: .*HTTP 500`));
  });
});
