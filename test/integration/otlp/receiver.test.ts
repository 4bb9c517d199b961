/**
 * POST /v1/traces called as a route handler with real Requests over a temp database: protobuf
 * (encoded by protobufjs code generated from the published opentelemetry-proto files, a different
 * implementation from the receiver's decoder) and JSON, gzip, OTLP success and partial-success
 * answers, limits, batches of one trace, the token and origin rules, and what imported runs may not do.
 */
import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const dbFile = vi.hoisted(() => {
  const path = `${process.cwd()}/test/.tmp/otlp-receiver-${process.pid}-${Date.now()}.db`;
  process.env.DATABASE_URL = `file:${path}`;
  process.env.REFLECT_LLM = "offline";
  return path;
});

import { NextRequest } from "next/server";
import * as traces from "@/app/v1/traces/route";
import { storeImportedTrace } from "@/db/queries/imported-runs";
import { getRunEvents, listRuns } from "@/db/queries/runs";
import { OTLP_MAX_BODY_BYTES } from "@/lib/server/http/otlp-receiver";
import { getAppDb } from "@/lib/server/runtime/db";
import { forkRun, getComparison, getRerunContext } from "@/lib/server/services/rerun";
import { foldRun } from "@/lib/timeline/fold";
import { importedRunId, spansFromOtlpJson, traceToRun } from "@/lib/timeline/otlp-import";
import { proxy } from "@/proxy";
import { ExportTraceServiceResponse, toProtobuf } from "@/test/fixtures/otlp/protobuf";
import {
  GENAI_TRACE_ID,
  genAiTrace,
  HINDSIGHT_TRACE_ID,
  hindsightTrace,
  OI_TRACE_ID,
  openInferenceTrace,
} from "@/test/fixtures/otlp/traces";

const Response_ = ExportTraceServiceResponse;

async function post(body: BodyInit, headers: Record<string, string>) {
  const res = await traces.POST(new Request("http://127.0.0.1/v1/traces", { method: "POST", body, headers }));
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { res, bytes, text: new TextDecoder().decode(bytes) };
}

const json = (body: unknown, extra: Record<string, string> = {}) =>
  post(JSON.stringify(body), { "content-type": "application/json", ...extra });
const protobuf = (bytes: Uint8Array, extra: Record<string, string> = {}) =>
  post(Buffer.from(bytes), { "content-type": "application/x-protobuf", ...extra });

beforeAll(async () => {
  mkdirSync(resolve(process.cwd(), "test/.tmp"), { recursive: true });
  await getAppDb();
});
afterAll(async () => {
  (await getAppDb()).$client.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${dbFile}${suffix}`, { force: true });
});

describe("ingest", () => {
  it("takes a GenAI trace as protobuf and answers an empty ExportTraceServiceResponse", async () => {
    const { res, bytes } = await protobuf(toProtobuf(genAiTrace()));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-protobuf");
    expect(Response_.toObject(Response_.decode(bytes), {})).toEqual({});
    expect(res.headers.get("x-imported-runs")).toBe(importedRunId(GENAI_TRACE_ID));
    const db = await getAppDb();
    const view = foldRun(await getRunEvents(db, importedRunId(GENAI_TRACE_ID)));
    expect(view.answer).toBe("Ana works at Globex.");
    expect(view.iterations).toHaveLength(2);
  });

  it("takes an OpenInference trace as gzip JSON and answers {} in JSON", async () => {
    const { res, text } = await post(gzipSync(JSON.stringify(openInferenceTrace())), {
      "content-type": "application/json",
      "content-encoding": "gzip",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(text)).toEqual({});
    const view = foldRun(await getRunEvents(await getAppDb(), importedRunId(OI_TRACE_ID)));
    expect(view.header.question).toBe("What did Ben buy?");
  });

  it("takes a Hindsight trace as gzip protobuf", async () => {
    const { res } = await protobuf(gzipSync(toProtobuf(hindsightTrace())), { "content-encoding": "gzip" });
    expect(res.status).toBe(200);
    const view = foldRun(await getRunEvents(await getAppDb(), importedRunId(HINDSIGHT_TRACE_ID)));
    expect(view.answer).toBe("The Atlas launch is on 12 March.");
  });

  it("lists imported runs with the imported badge, filterable, with their source", async () => {
    const db = await getAppDb();
    const page = await listRuns(db, { flag: "imported" });
    expect(page.runs.map((r) => r.id).sort()).toEqual(
      [GENAI_TRACE_ID, OI_TRACE_ID, HINDSIGHT_TRACE_ID].map(importedRunId).sort(),
    );
    const genai = page.runs.find((r) => r.id === importedRunId(GENAI_TRACE_ID));
    expect(genai).toMatchObject({
      modelKind: "imported",
      modelName: "gpt-4o",
      skillName: "memory-agent",
      status: "done",
    });
    expect(genai?.flags).toContain("imported");
    expect((await listRuns(db, { flag: "nudged" })).runs).toEqual([]);
  });

  it("builds one run from a trace sent in several batches, and a resent batch changes nothing", async () => {
    const body = genAiTrace();
    const traceId = "4df7651916cd43dd8448eb211c80319f";
    const spans = body.resourceSpans[0]!.scopeSpans[0]!.spans.map((s) => ({ ...s, traceId }));
    const [root, ...children] = spans;
    const part = (list: typeof spans) => ({
      resourceSpans: [
        { ...body.resourceSpans[0], scopeSpans: [{ ...body.resourceSpans[0]!.scopeSpans[0], spans: list }] },
      ],
    });
    expect((await json(part(children))).res.status).toBe(200);
    const db = await getAppDb();
    const early = foldRun(await getRunEvents(db, importedRunId(traceId)));
    expect(early.header.question).toBe("Where does Ana work?"); // from the first chat's prompt
    expect(early.iterations).toHaveLength(2); // the earliest span, a model call, is still a step
    expect((await json(part([root!]))).res.status).toBe(200);
    const events = await getRunEvents(db, importedRunId(traceId));
    const whole = foldRun(events);
    expect(whole.answer).toBe("Ana works at Globex.");
    expect(whole.header.skill?.name).toBe("memory-agent");
    expect((await json(part(children))).res.status).toBe(200);
    expect(await getRunEvents(db, importedRunId(traceId))).toEqual(events);
    const rows = await db.$client.execute({
      sql: "SELECT count(*) AS n FROM otlp_spans WHERE run_id = ?",
      args: [importedRunId(traceId)],
    });
    expect(Number(rows.rows[0]!.n)).toBe(spans.length);
  });
});

describe("an imported run", () => {
  it("cannot be forked or re-run (no engine configuration), and the run page offers neither", async () => {
    const db = await getAppDb();
    const id = importedRunId(HINDSIGHT_TRACE_ID);
    await expect(forkRun(db, { parentRunId: id, forkAt: 0 })).rejects.toThrow(/imported from an OpenTelemetry trace/);
    expect(await getRerunContext(db, id)).toBeNull();
  });

  it("compares with any run, step by step", async () => {
    const db = await getAppDb();
    const { comparison } = await getComparison(db, importedRunId(GENAI_TRACE_ID), importedRunId(HINDSIGHT_TRACE_ID));
    expect(comparison.steps.length).toBeGreaterThan(0);
    expect(comparison.firstDivergence).not.toBeNull();
    expect(comparison.answerChanged).toBe(true);
  });
});

describe("partial success", () => {
  it("spans past a trace's limit are rejected, the run keeps the rest; a resent span still counts as taken", async () => {
    const db = await getAppDb();
    const body = genAiTrace();
    const traceId = "6af7651916cd43dd8448eb211c80319c";
    const spans = spansFromOtlpJson(body).spans.map((s) => ({ ...s, traceId }));
    const first = await storeImportedTrace(db, traceId, spans.slice(0, 3), traceToRun, 4);
    expect(first).toMatchObject({ accepted: 3, rejected: 0, created: true });
    const second = await storeImportedTrace(db, traceId, spans.slice(2), traceToRun, 4);
    expect(second).toMatchObject({ accepted: 2, rejected: 2, created: false });
    const rows = await db.$client.execute({
      sql: "SELECT count(*) AS n FROM otlp_spans WHERE run_id = ?",
      args: [importedRunId(traceId)],
    });
    expect(Number(rows.rows[0]!.n)).toBe(4);
  });

  function withBadSpans() {
    const body = openInferenceTrace();
    const traceId = "5ef7651916cd43dd8448eb211c80319a";
    const spans = body.resourceSpans[0]!.scopeSpans[0]!.spans.map((s) => ({ ...s, traceId })) as Record<
      string,
      unknown
    >[];
    spans.push({ ...spans[1], spanId: "12345", name: "bad id" });
    spans.push({
      ...spans[1],
      spanId: "e000000000000001",
      startTimeUnixNano: "9",
      endTimeUnixNano: "1",
      name: "reversed",
    });
    body.resourceSpans[0]!.scopeSpans[0]!.spans = spans as never;
    return body;
  }

  it("JSON: rejectedSpans and the reasons, the good spans stored", async () => {
    const { res, text } = await json(withBadSpans());
    expect(res.status).toBe(200);
    const answer = JSON.parse(text);
    expect(answer.partialSuccess.rejectedSpans).toBe(2);
    expect(answer.partialSuccess.errorMessage).toMatch(/"bad id": spanId must be 16 hex digits/);
    expect(answer.partialSuccess.errorMessage).toMatch(/"reversed": ends before it starts/);
    const view = foldRun(await getRunEvents(await getAppDb(), importedRunId("5ef7651916cd43dd8448eb211c80319a")));
    expect(view.answer).toBe("A bike.");
  });

  it("protobuf: the same in an ExportTraceServiceResponse", async () => {
    const body = withBadSpans();
    // protobuf cannot carry a 5-hex-digit id: 3 bytes instead of 8 is what a broken exporter sends.
    const { res, bytes } = await protobuf(toProtobuf(body));
    expect(res.status).toBe(200);
    const answer = Response_.toObject(Response_.decode(bytes), { longs: Number }) as {
      partialSuccess: { rejectedSpans: number; errorMessage: string };
    };
    expect(answer.partialSuccess.rejectedSpans).toBe(2);
    expect(answer.partialSuccess.errorMessage).toMatch(/ends before it starts/);
  });
});

describe("refusals", () => {
  it("415 for another media type or encoding, with a Status body", async () => {
    const plain = await post("{}", { "content-type": "text/plain" });
    expect(plain.res.status).toBe(415);
    expect(JSON.parse(plain.text).message).toMatch(/application\/x-protobuf or application\/json/);
    const br = await json({}, { "content-encoding": "br" });
    expect(br.res.status).toBe(415);
  });

  it("400 for a body that is not a request: bad JSON, bad protobuf, bad gzip", async () => {
    const badJson = await post("{nope", { "content-type": "application/json" });
    expect(badJson.res.status).toBe(400);
    expect(JSON.parse(badJson.text)).toMatchObject({ code: 3 });
    const badProto = await protobuf(Uint8Array.from([0x0a, 0xff, 0xff, 0x01]));
    expect(badProto.res.status).toBe(400);
    expect(badProto.res.headers.get("content-type")).toBe("application/x-protobuf");
    const badGzip = await json({}, { "content-encoding": "gzip" });
    expect(badGzip.res.status).toBe(400);
    const notRequest = await json([1, 2]);
    expect(notRequest.res.status).toBe(400);
  });

  it("413 past the body limit, and for a gzip bomb past the decompressed limit", async () => {
    const big = await post(new Uint8Array(OTLP_MAX_BODY_BYTES + 1), { "content-type": "application/x-protobuf" });
    expect(big.res.status).toBe(413);
    const bomb = gzipSync(Buffer.alloc(60_000_000, 0x20));
    expect(bomb.length).toBeLessThan(OTLP_MAX_BODY_BYTES);
    const exploded = await post(bomb, { "content-type": "application/json", "content-encoding": "gzip" });
    expect(exploded.res.status).toBe(413);
    expect(JSON.parse(exploded.text).message).toMatch(/decompressed/);
  });

  /** An ExportTraceServiceRequest (protobuf) of one resource and one scope holding `inner` as its spans' bytes. */
  function protobufRequest(inner: Buffer): Buffer {
    const ld = (field: number, b: Buffer) => {
      const len: number[] = [];
      let n = b.length;
      while (n > 127) {
        len.push((n & 127) | 128);
        n >>>= 7;
      }
      len.push(n);
      return Buffer.concat([Buffer.from([(field << 3) | 2, ...len]), b]);
    };
    return ld(1, ld(2, inner));
  }

  // A few kilobytes of gzip that unpack to millions of empty messages: the limits are counted while
  // decoding, so the request is refused without materialising them (before, each was decoded, read
  // and only then counted: minutes of CPU and gigabytes of heap for one request).
  it("413 for millions of empty protobuf spans, refused while decoding, not after", async () => {
    const spans = Buffer.alloc(2 * 3_000_000);
    for (let i = 0; i < spans.length; i += 2) spans[i] = 0x12; // ScopeSpans.spans, length 0
    const bomb = gzipSync(protobufRequest(spans));
    expect(bomb.length).toBeLessThan(100_000);
    const { res, bytes } = await protobuf(bomb, { "content-encoding": "gzip" });
    expect(res.status).toBe(413);
    const message = new TextDecoder().decode(bytes);
    expect(message).toMatch(/more than 50,000 spans/);
    expect(message).not.toMatch(/3000000/);
  });

  it("413 for one protobuf span with millions of empty attributes", async () => {
    const attributes = Buffer.alloc(2 * 3_000_000);
    for (let i = 0; i < attributes.length; i += 2) attributes[i] = 0x4a; // Span.attributes, length 0
    const len: number[] = [];
    let n = attributes.length;
    while (n > 127) {
      len.push((n & 127) | 128);
      n >>>= 7;
    }
    len.push(n);
    const span = Buffer.concat([Buffer.from([0x12, ...len]), attributes]);
    const { res, bytes } = await protobuf(gzipSync(protobufRequest(span)), { "content-encoding": "gzip" });
    expect(res.status).toBe(413);
    expect(new TextDecoder().decode(bytes)).toMatch(/more than 2,000,000 attribute values/);
  });

  it("413 for a JSON request of millions of empty objects, refused before it is parsed", async () => {
    const text = `{"resourceSpans":[{"scopeSpans":[{"spans":[${Array(5_000_000).fill("{}").join(",")}]}]}]}`;
    const { res, text: answer } = await post(gzipSync(text), {
      "content-type": "application/json",
      "content-encoding": "gzip",
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(answer).message).toMatch(/more than [\d,]+ JSON objects and arrays/);
  });

  it("a request past the span limit is refused before its spans are read one by one (JSON)", async () => {
    const spans = Array.from({ length: 50_001 }, () => ({}));
    const { res, text } = await json({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
    expect(res.status).toBe(413);
    // Counted from the lists' lengths: every one of these spans would be rejected if it were read.
    expect(JSON.parse(text).message).toBe("The request holds more than 50,000 spans; at most 50,000 are read at once.");
  });

  it("past 1,000 traces in one request, the rest are rejected as a partial success", async () => {
    const spans = Array.from({ length: 1002 }, (_, i) => ({
      traceId: (0x7000000000000000000000000000000n + BigInt(i)).toString(16).padStart(32, "0"),
      spanId: "7000000000000001",
      name: "tiny",
      kind: 1,
      startTimeUnixNano: "1",
      endTimeUnixNano: "2",
    }));
    const { res, text } = await json({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
    expect(res.status).toBe(200);
    expect(JSON.parse(text).partialSuccess).toEqual({
      rejectedSpans: 2,
      errorMessage: "more than 1000 traces in one request: the rest were not read",
    });
  }, 120_000);

  it("another method is 405 with Allow: POST, OPTIONS (not Next's bare 405), and OPTIONS lists the same", async () => {
    const route = traces as unknown as Record<string, ((r: Request) => Response | Promise<Response>) | undefined>;
    for (const method of ["GET", "PUT", "PATCH", "DELETE"]) {
      const handler = route[method];
      expect(handler, `${method} is answered by the route`).toBeTypeOf("function");
      const res = await handler!(new Request("http://127.0.0.1/v1/traces", { method }));
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow")).toBe("POST, OPTIONS");
    }
    const options = await route.OPTIONS!(new Request("http://127.0.0.1/v1/traces", { method: "OPTIONS" }));
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("POST, OPTIONS");
  });

  it("an empty request is a success with nothing stored", async () => {
    const { res, text } = await json({ resourceSpans: [] });
    expect(res.status).toBe(200);
    expect(JSON.parse(text)).toEqual({});
  });
});

describe("access rules (the proxy)", () => {
  const request = (headers: Record<string, string>) =>
    new NextRequest("http://127.0.0.1/v1/traces", {
      method: "POST",
      headers: { host: "127.0.0.1", "content-type": "application/x-protobuf", ...headers },
    });

  it("needs the token when INSPECTOR_TOKEN is set: 401, not a login redirect", async () => {
    vi.stubEnv("INSPECTOR_TOKEN", "s3cret-token-for-tests");
    try {
      const res = await proxy(request({}));
      expect(res.status).toBe(401);
      const ok = await proxy(request({ authorization: "Bearer s3cret-token-for-tests" }));
      expect(ok.headers.get("x-middleware-next")).toBe("1");
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("refuses a write from another origin and a foreign Host", async () => {
    expect((await proxy(request({ origin: "https://evil.example" }))).status).toBe(403);
    expect((await proxy(request({ host: "evil.example" }))).status).toBe(403);
  });
});
