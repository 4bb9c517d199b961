/**
 * A loopback OTLP/HTTP trace receiver standing in for Phoenix, Jaeger or a Collector. Like
 * Phoenix's `/v1/traces` it can refuse anything but `application/x-protobuf` (415). Protobuf
 * bodies are decoded with protobufjs code that the OpenTelemetry JS project generated from the
 * published opentelemetry-proto files (a different implementation from the app's encoder), then
 * normalized to the OTLP/JSON shape so a test can compare them with the app's JSON export.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import generated from "otlp-proto-pbjs/build/src/generated/root.js";
import type { OtlpAnyValue, OtlpAttribute, OtlpTrace } from "@/lib/timeline/otlp";

interface MessageType {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: Record<string, unknown>): unknown;
}
const ExportTraceServiceRequest = (
  generated as unknown as {
    opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: MessageType } } } } };
  }
).opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

type Decoded = Record<string, unknown>;

const hex = (bytes: unknown) => (bytes instanceof Uint8Array ? Buffer.from(bytes).toString("hex") : "");

function anyValue(v: Decoded): OtlpAnyValue {
  if (v.stringValue !== undefined) return { stringValue: v.stringValue as string };
  if (v.boolValue !== undefined) return { boolValue: v.boolValue as boolean };
  if (v.intValue !== undefined) return { intValue: String(v.intValue) };
  if (v.doubleValue !== undefined) return { doubleValue: v.doubleValue as number };
  if (v.arrayValue !== undefined) {
    return { arrayValue: { values: (((v.arrayValue as Decoded).values as Decoded[]) ?? []).map(anyValue) } };
  }
  throw new Error(`unexpected AnyValue ${JSON.stringify(v)}`);
}

const attributes = (list: unknown): OtlpAttribute[] =>
  ((list as Decoded[]) ?? []).map((kv) => ({ key: kv.key as string, value: anyValue(kv.value as Decoded) }));

/** Protobuf bytes → the OTLP/JSON mapping's shape, keeping only the fields the app's JSON has. */
export function decodeTraceProtobuf(bytes: Uint8Array): OtlpTrace {
  const message = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(bytes), {
    longs: String,
    enums: Number,
    arrays: true,
  }) as { resourceSpans: Decoded[] };
  return {
    resourceSpans: message.resourceSpans.map((rs) => ({
      resource: { attributes: attributes((rs.resource as Decoded).attributes) },
      scopeSpans: (rs.scopeSpans as Decoded[]).map((ss) => ({
        scope: { name: (ss.scope as Decoded).name as string, version: (ss.scope as Decoded).version as string },
        spans: (ss.spans as Decoded[]).map((s) => {
          const status = (s.status ?? {}) as Decoded;
          const parent = hex(s.parentSpanId);
          return {
            traceId: hex(s.traceId),
            spanId: hex(s.spanId),
            ...(parent ? { parentSpanId: parent } : {}),
            name: s.name as string,
            kind: s.kind as 1 | 3,
            startTimeUnixNano: s.startTimeUnixNano as string,
            endTimeUnixNano: s.endTimeUnixNano as string,
            attributes: attributes(s.attributes),
            events: (s.events as Decoded[]).map((e) => ({
              timeUnixNano: e.timeUnixNano as string,
              name: e.name as string,
              attributes: attributes(e.attributes),
            })),
            status: {
              code: ((status.code as number | undefined) ?? 0) as 0 | 1 | 2,
              ...(status.message ? { message: status.message as string } : {}),
            },
          };
        }),
      })),
    })),
  };
}

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  at: number;
  trace: OtlpTrace;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Never answer (a hung collector). */
  hang?: boolean;
}

export interface Collector {
  url: string;
  received: Received[];
  /** Attempts that were refused, in order (status and content type). */
  refused: { status: number; contentType: string | undefined; at: number }[];
  /** Replies for the next requests, first in first out; then 200. */
  replies: Reply[];
  reset(): void;
  close(): Promise<void>;
}

export async function startCollector(options: { protobufOnly: boolean }): Promise<Collector> {
  const received: Received[] = [];
  const refused: Collector["refused"] = [];
  const replies: Reply[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = Date.now();
      const contentType = req.headers["content-type"];
      const reply = replies.shift();
      if (reply?.hang) return;
      if (reply && reply.status !== 200) {
        refused.push({ status: reply.status, contentType, at });
        res.writeHead(reply.status, reply.headers).end(reply.body ?? "");
        return;
      }
      if (options.protobufOnly && contentType !== "application/x-protobuf") {
        refused.push({ status: 415, contentType, at });
        res.writeHead(415, { "content-type": "text/plain" }).end(`Unsupported content type: ${contentType}`);
        return;
      }
      let body = Buffer.concat(chunks);
      if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
      const trace =
        contentType === "application/x-protobuf"
          ? decodeTraceProtobuf(body)
          : (JSON.parse(body.toString("utf8")) as OtlpTrace);
      received.push({ path: req.url ?? "", headers: req.headers, at, trace });
      res.writeHead(200, { "content-type": contentType ?? "application/json" }).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    refused,
    replies,
    reset() {
      received.length = 0;
      refused.length = 0;
      replies.length = 0;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
