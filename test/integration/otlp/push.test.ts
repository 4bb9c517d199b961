/**
 * OTLP export of stored runs: the trace built from the database and the push of every finished
 * run to an OTLP/HTTP collector — a loopback receiver that, like Phoenix, accepts only
 * `application/x-protobuf` and decodes it with the published proto definitions.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Db } from "@/db/client";
import { getRun } from "@/db/queries/runs";
import { createOfflineModel } from "@/lib/llm";
import { ensureDemoBank } from "@/lib/server/runtime/db";
import {
  EXPORTER_USER_AGENT,
  type ExportClock,
  exporterConfig,
  flushTracePushes,
  getRunOtlp,
  OTLP_MAX_PUSHES,
  OTLP_MAX_WAITING,
  otlpPushState,
  pushRunTrace,
  pushRunTraceInBackground,
  retryAfterMs,
  tracesEndpoint,
} from "@/lib/server/services/otlp-push";
import { startRun } from "@/lib/server/services/runs";
import packageJson from "@/package.json";
import { langfuseTraceTokens, phoenixTraceTokens } from "@/test/fixtures/otlp-viewers";
import { openTempDb } from "../db/temp-db";
import { type Collector, startCollector } from "./collector";

let db: Db;
let cleanup: () => void;
/** Phoenix-like: 415 for anything but protobuf. */
let phoenix: Collector;

/** A clock that only moves when the exporter sleeps, and records each sleep (no real waiting). */
function steppedClock(): ExportClock & { sleeps: number[] } {
  let now = 1_000_000;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}
/** A Collector-like receiver that also takes OTLP/JSON. */
let anyFormat: Collector;

beforeAll(async () => {
  ({ db, cleanup } = await openTempDb("otlp-push"));
  await ensureDemoBank(db);
  phoenix = await startCollector({ protobufOnly: true });
  anyFormat = await startCollector({ protobufOnly: false });
});
afterAll(async () => {
  await phoenix.close();
  await anyFormat.close();
  cleanup();
});
afterEach(() => {
  phoenix.reset();
  anyFormat.reset();
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

  it("reads protocol, timeout, compression and headers, the traces variables winning", () => {
    const config = exporterConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://h:4318",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf",
      OTEL_EXPORTER_OTLP_TIMEOUT: "2500",
      OTEL_EXPORTER_OTLP_COMPRESSION: "gzip",
      OTEL_EXPORTER_OTLP_HEADERS: "api_key=a,x-team=b",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "api_key=c",
    });
    expect(config).toEqual({
      url: "http://h:4318/v1/traces",
      protocol: "http/protobuf",
      timeoutMs: 2500,
      compression: "gzip",
      headers: { api_key: "c", "x-team": "b" },
    });
    expect(exporterConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://h" })).toMatchObject({
      protocol: "http/protobuf",
      timeoutMs: 10_000,
      compression: "none",
    });
    expect(() =>
      exporterConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://h", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }),
    ).toThrow("OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: use http/protobuf (the default) or http/json");
    expect(() =>
      exporterConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://h", OTEL_EXPORTER_OTLP_TIMEOUT: "soon" }),
    ).toThrow(/OTEL_EXPORTER_OTLP_TIMEOUT/);
  });

  it("refuses a bad endpoint or header at once, naming the variable and never a password", () => {
    const bad = (env: Record<string, string>) => {
      try {
        exporterConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://h", ...env });
      } catch (err) {
        return (err as Error).message;
      }
      return "accepted";
    };
    const withPassword = bad({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://user:s3cretpw@127.0.0.1:9" });
    expect(withPassword).toMatch(/OTEL_EXPORTER_OTLP_ENDPOINT must not carry credentials/);
    expect(withPassword).not.toContain("s3cretpw");
    expect(bad({ OTEL_EXPORTER_OTLP_ENDPOINT: "notaurl" })).toMatch(/not a URL/);
    expect(bad({ OTEL_EXPORTER_OTLP_ENDPOINT: "ftp://h" })).toMatch(/http\(s\) URL/);
    expect(bad({ OTEL_EXPORTER_OTLP_HEADERS: "a=%zz" })).toMatch(/OTEL_EXPORTER_OTLP_HEADERS: the value of "a"/);
    expect(bad({ OTEL_EXPORTER_OTLP_HEADERS: "x-bad=a%0Ab" })).toMatch(/control character/);
    expect(bad({ OTEL_EXPORTER_OTLP_TIMEOUT: "99999999999" })).toMatch(/at most 600000/);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    expect(retryAfterMs("2")).toBe(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 7_000)).toBe(3000);
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs("later")).toBeNull();
  });

  it("pushes protobuf by default, which a protobuf-only receiver decodes into the same trace as the JSON export", async () => {
    const runId = await finishedRun();
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: phoenix.url, OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20t0k" };
    expect(await pushRunTrace(db, runId, env)).toBe(true);
    expect(phoenix.refused).toEqual([]);
    expect(phoenix.received).toHaveLength(1);
    const [hit] = phoenix.received;
    expect(hit!.path).toBe("/v1/traces");
    expect(hit!.headers["content-type"]).toBe("application/x-protobuf");
    expect(hit!.headers.authorization).toBe("Bearer t0k");
    // Every id, time, attribute and status survives the protobuf round trip.
    expect(hit!.trace).toEqual(await getRunOtlp(db, runId, env));
    const resource = hit!.trace.resourceSpans[0]!.resource.attributes;
    expect(resource).toContainEqual({ key: "telemetry.sdk.version", value: { stringValue: packageJson.version } });
    const spans = hit!.trace.resourceSpans[0]!.scopeSpans[0]!.spans;
    expect(spans.some((s) => s.name.startsWith("retrieval demo/"))).toBe(true);
  });

  it("sends a User-Agent naming the app and its version, and a trace whose tokens each viewer counts once", async () => {
    const runId = await finishedRun();
    expect(await pushRunTrace(db, runId, { OTEL_EXPORTER_OTLP_ENDPOINT: phoenix.url })).toBe(true);
    const [hit] = phoenix.received;
    expect(hit!.headers["user-agent"]).toBe(`reflect-inspector/${packageJson.version}`);
    expect(EXPORTER_USER_AGENT).toBe(`reflect-inspector/${packageJson.version}`);
    // Decoded with the official protos: the run's usage once in Phoenix's and Langfuse's sums.
    const run = (await getRun(db, runId))!;
    const spans = hit!.trace.resourceSpans[0]!.scopeSpans[0]!.spans;
    const usage = { input: run.inputTokens, output: run.outputTokens };
    expect(usage.input).toBeGreaterThan(0);
    expect(phoenixTraceTokens(spans)).toEqual(usage);
    expect(langfuseTraceTokens(spans)).toEqual(usage);
    // Document scores are protobuf doubles, the best hit's 1.0 included.
    const scores = spans.flatMap((s) => s.attributes.filter((a) => a.key.endsWith(".document.score")));
    expect(scores.length).toBeGreaterThan(0);
    expect(scores).toContainEqual({ key: "retrieval.documents.0.document.score", value: { doubleValue: 1 } });
    for (const a of scores) expect(a.value).toEqual({ doubleValue: expect.any(Number) });
    // Retrieval and memory searches are CLIENT spans.
    for (const s of spans.filter((x) => x.name === "search_memory" || x.name.startsWith("retrieval "))) {
      expect(s.kind).toBe(3);
    }
  });

  it("lets a configured user-agent header win", async () => {
    const runId = await finishedRun();
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: phoenix.url, OTEL_EXPORTER_OTLP_HEADERS: "user-agent=proxy-tagged" };
    expect(await pushRunTrace(db, runId, env)).toBe(true);
    expect(phoenix.received[0]!.headers["user-agent"]).toBe("proxy-tagged");
  });

  it("sends OTLP/JSON with OTEL_EXPORTER_OTLP_PROTOCOL=http/json (and a protobuf-only receiver refuses it)", async () => {
    const runId = await finishedRun();
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: anyFormat.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" };
    expect(await pushRunTrace(db, runId, env)).toBe(true);
    expect(anyFormat.received[0]!.headers["content-type"]).toBe("application/json");
    expect(anyFormat.received[0]!.trace).toEqual(await getRunOtlp(db, runId, env));

    const refusedEnv = { OTEL_EXPORTER_OTLP_ENDPOINT: phoenix.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" };
    await expect(pushRunTrace(db, runId, refusedEnv)).rejects.toThrow(/HTTP 415/);
  });

  it("gzips the body with OTEL_EXPORTER_OTLP_COMPRESSION=gzip", async () => {
    const runId = await finishedRun();
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: phoenix.url, OTEL_EXPORTER_OTLP_COMPRESSION: "gzip" };
    expect(await pushRunTrace(db, runId, env)).toBe(true);
    expect(phoenix.received[0]!.headers["content-encoding"]).toBe("gzip");
    expect(phoenix.received[0]!.trace).toEqual(await getRunOtlp(db, runId, env));
  });

  it("retries a 503 after the collector's Retry-After", async () => {
    const runId = await finishedRun();
    phoenix.replies.push({ status: 503, headers: { "retry-after": "1" }, body: "starting up" });
    const clock = steppedClock();
    expect(await pushRunTrace(db, runId, { OTEL_EXPORTER_OTLP_ENDPOINT: phoenix.url }, clock)).toBe(true);
    expect(phoenix.refused.map((r) => r.status)).toEqual([503]);
    expect(phoenix.received).toHaveLength(1);
    expect(clock.sleeps).toEqual([1_000]);
  });

  it("retries 429, 502 and 504 with backoff, but not a 400", async () => {
    const runId = await finishedRun();
    // Retry-After: 0 retries at once; without it the exporter backs off (about a second).
    phoenix.replies.push(
      { status: 429, headers: { "retry-after": "0" } },
      { status: 502 },
      { status: 504, headers: { "retry-after": "0" } },
    );
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: phoenix.url, OTEL_EXPORTER_OTLP_TIMEOUT: "15000" };
    const clock = steppedClock();
    expect(await pushRunTrace(db, runId, env, clock)).toBe(true);
    expect(phoenix.refused.map((r) => r.status)).toEqual([429, 502, 504]);
    expect(phoenix.received).toHaveLength(1);
    // Retry-After 0, then the second attempt's backoff (1.5 s ±20%), then Retry-After 0.
    expect(clock.sleeps).toEqual([0, expect.any(Number), 0]);
    expect(clock.sleeps[1]).toBeGreaterThanOrEqual(1_200);
    expect(clock.sleeps[1]).toBeLessThanOrEqual(1_800);

    phoenix.reset();
    phoenix.replies.push({ status: 400, body: "bad trace" });
    const once = steppedClock();
    await expect(pushRunTrace(db, runId, { OTEL_EXPORTER_OTLP_ENDPOINT: phoenix.url }, once)).rejects.toThrow(
      /HTTP 400 bad trace/,
    );
    expect(phoenix.refused).toHaveLength(1);
    expect(once.sleeps).toEqual([]);
  });

  it("gives up within OTEL_EXPORTER_OTLP_TIMEOUT when the collector does not answer", async () => {
    const runId = await finishedRun();
    phoenix.replies.push({ status: 200, hang: true });
    const clock = steppedClock();
    // The request itself is cut by a real 300 ms timer; no retry follows it.
    await expect(
      pushRunTrace(db, runId, { OTEL_EXPORTER_OTLP_ENDPOINT: phoenix.url, OTEL_EXPORTER_OTLP_TIMEOUT: "300" }, clock),
    ).rejects.toThrow(/no answer within 300 ms/);
    expect(clock.sleeps).toEqual([]);
  });

  it("retries a refused connection (a collector restarting), then gives up within the timeout", async () => {
    const runId = await finishedRun();
    const closed = await startCollector({ protobufOnly: true });
    await closed.close();
    const clock = steppedClock();
    await expect(
      pushRunTrace(db, runId, { OTEL_EXPORTER_OTLP_ENDPOINT: closed.url, OTEL_EXPORTER_OTLP_TIMEOUT: "1500" }, clock),
    ).rejects.toThrow(/ECONNREFUSED.*gave up after 2 attempts within 1500 ms/);
    // One backoff (a second ±20%); the next (1.5 s ±20%) would end past the timeout, so it gives up.
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(800);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(1_200);
  });

  it("does nothing without an endpoint", async () => {
    const runId = await finishedRun();
    expect(await pushRunTrace(db, runId, {})).toBe(false);
    expect(phoenix.received).toHaveLength(0);
  });

  it("pushes every finished run by itself when OTEL_EXPORTER_OTLP_ENDPOINT is set", async () => {
    vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", phoenix.url);
    const runId = await finishedRun();
    const hit = await waitFor(() => phoenix.received[0]);
    const root = hit.trace.resourceSpans[0]!.scopeSpans[0]!.spans.find((s) => !s.parentSpanId)!;
    expect(root.attributes).toContainEqual({ key: "reflect.run.id", value: { stringValue: runId } });
    expect(root.attributes.find((a) => a.key === "reflect.status")?.value).toEqual({ stringValue: "done" });
  });

  it("keeps the run's result when the collector refuses it, logging the failure", async () => {
    vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", phoenix.url);
    phoenix.replies.push({ status: 500, body: "collector down" });
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const runId = await finishedRun();
    expect((await getRun(db, runId))!.status).toBe("done");
    await waitFor(() => (logged.mock.calls.length > 0 ? true : undefined));
    expect(String(logged.mock.calls[0]![0])).toMatch(new RegExp(`OTLP export of run ${runId} failed: .*HTTP 500`));
  });
});

describe("a hung collector holds a bounded number of connections (issue #28 item 12)", () => {
  it(`pushes at most ${OTLP_MAX_PUSHES} at once, queues ${OTLP_MAX_WAITING}, drops the rest with one log line`, async () => {
    const runId = await finishedRun();
    let open = 0;
    let peak = 0;
    let hang = true;
    const held: import("node:http").ServerResponse[] = [];
    const server = createServer((req, res) => {
      open++;
      peak = Math.max(peak, open);
      res.on("close", () => open--);
      req.resume();
      req.on("end", () => {
        if (hang) held.push(res);
        else res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_EXPORTER_OTLP_TIMEOUT: "60000" };
    try {
      const total = OTLP_MAX_PUSHES + OTLP_MAX_WAITING + 40;
      for (let i = 0; i < total; i++) pushRunTraceInBackground(db, runId, env);
      await waitFor(() => (held.length === OTLP_MAX_PUSHES ? true : undefined));
      await new Promise((r) => setTimeout(r, 200));
      expect(peak).toBe(OTLP_MAX_PUSHES);
      expect(otlpPushState()).toEqual({ active: OTLP_MAX_PUSHES, waiting: OTLP_MAX_WAITING, dropped: 40 });
      const drops = logged.mock.calls.filter((c) => /dropped/.test(String(c[0])));
      expect(drops).toHaveLength(1);
      // The collector recovers: the held pushes are answered and the queue drains.
      hang = false;
      for (const res of held.splice(0)) res.writeHead(200).end();
      await flushTracePushes();
      expect(otlpPushState()).toEqual({ active: 0, waiting: 0, dropped: 0 });
      expect(peak).toBe(OTLP_MAX_PUSHES);
    } finally {
      for (const res of held) res.destroy();
      await new Promise((r) => server.close(r));
    }
  }, 60_000);
});
