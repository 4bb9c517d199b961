/**
 * OTLP receiver (docs/tracing.md#receiving-traces): ingest throughput of a 5k-span GenAI trace sent
 * as protobuf, in process over a temp database (the timeline bench times it over HTTP), and how long the receiver
 * takes to refuse a gzip body of a few kilobytes that unpacks to millions of empty spans or JSON
 * objects — refused while it is decoded (protobuf) or before it is parsed (JSON), not after.
 */
import { loadavg } from "node:os";
import { gzipSync } from "node:zlib";
import { receiveTraces } from "@/lib/server/http/otlp-receiver";
import { toProtobuf } from "@/test/fixtures/otlp/protobuf";
import { largeGenAiTrace } from "@/test/fixtures/otlp/traces";
import { atMost, type BenchRow, median, openBenchDb, row } from "./report";

const SPANS = 5_000;
const REPEATS = 3;

/** ExportTraceServiceRequest{resource_spans{scope_spans{`inner`}}} as protobuf bytes. */
function wrap(inner: Buffer): Buffer {
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

export async function benchOtlp(log: (line: string) => void): Promise<BenchRow[]> {
  const { db, cleanup } = await openBenchDb("otlp");
  try {
    const post = async (body: Uint8Array, headers: Record<string, string>) => {
      const start = performance.now();
      const res = await receiveTraces(
        new Request("http://127.0.0.1/v1/traces", { method: "POST", body: Buffer.from(body), headers }),
        async () => db,
      );
      await res.arrayBuffer();
      return { ms: performance.now() - start, status: res.status };
    };
    const ingest: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const body = toProtobuf(
        largeGenAiTrace(SPANS, (0xe0f7651916cd43dd8448eb211c803100n + BigInt(i)).toString(16).padStart(32, "0")),
      );
      const { ms, status } = await post(body, { "content-type": "application/x-protobuf" });
      if (status !== 200) throw new Error(`ingest answered ${status}`);
      ingest.push(ms);
    }
    const ingestMs = median(ingest);
    log(`  otlp: ${SPANS} spans ingested in ${ingestMs.toFixed(0)} ms (median of ${REPEATS})`);

    const spans = Buffer.alloc(2 * 20_000_000);
    for (let i = 0; i < spans.length; i += 2) spans[i] = 0x12;
    const pbBomb = gzipSync(wrap(spans));
    const heap0 = process.memoryUsage().heapUsed;
    const pb = await post(pbBomb, { "content-type": "application/x-protobuf", "content-encoding": "gzip" });
    const pbHeap = (process.memoryUsage().heapUsed - heap0) / 1e6;
    if (pb.status !== 413) throw new Error(`the protobuf bomb answered ${pb.status}`);

    const json = `{"resourceSpans":[{"scopeSpans":[{"spans":[${Array(15_000_000).fill("{}").join(",")}]}]}]}`;
    const jsonBomb = gzipSync(json);
    const js = await post(jsonBomb, { "content-type": "application/json", "content-encoding": "gzip" });
    if (js.status !== 413) throw new Error(`the JSON bomb answered ${js.status}`);
    const load = `load ${loadavg()[0]!.toFixed(1)}`;
    return [
      row(
        "otlp",
        `ingest of a ${SPANS.toLocaleString("en-US")}-span protobuf trace, in process`,
        Math.round((SPANS / ingestMs) * 1000),
        "spans/s",
        undefined,
        load,
      ),
      row(
        "otlp",
        `refuse ${(pbBomb.length / 1000).toFixed(0)} KB of gzip unpacking to 20M empty protobuf spans`,
        pb.ms,
        "ms",
        atMost(pb.ms, 2000, "ms"),
        `heap +${pbHeap.toFixed(0)} MB; ${load}`,
      ),
      row(
        "otlp",
        `refuse ${(jsonBomb.length / 1000).toFixed(0)} KB of gzip unpacking to 15M empty JSON objects`,
        js.ms,
        "ms",
        atMost(js.ms, 2000, "ms"),
        load,
      ),
    ];
  } finally {
    cleanup();
  }
}
