/**
 * OTLP export: the exporter settings read from the `OTEL_EXPORTER_OTLP_*` variables, and a run as
 * an OTLP/JSON trace (`ExportTraceServiceRequest` in the OTLP/JSON mapping: hex ids,
 * nanosecond times as strings, enums as numbers), as the export route serves it. The shape is
 * built by lib/timeline/otlp.ts; this schema documents it in the OpenAPI document.
 */
import { z } from "zod";

const ScalarValue = z.union([
  z.object({ stringValue: z.string() }).strict(),
  z.object({ intValue: z.string().regex(/^-?\d+$/) }).strict(),
  z.object({ doubleValue: z.number() }).strict(),
  z.object({ boolValue: z.boolean() }).strict(),
]);
/** Our arrays hold scalars only (lists of ids, reasons, tool names). */
const AnyValue = z.union([ScalarValue, z.object({ arrayValue: z.object({ values: z.array(ScalarValue) }) }).strict()]);
const Attributes = z.array(z.object({ key: z.string(), value: AnyValue }));
const UnixNano = z.string().regex(/^\d+$/).meta({ description: "nanoseconds since the Unix epoch" });

const Span = z.object({
  traceId: z.string().regex(/^[0-9a-f]{32}$/),
  spanId: z.string().regex(/^[0-9a-f]{16}$/),
  parentSpanId: z
    .string()
    .regex(/^[0-9a-f]{16}$/)
    .optional(),
  name: z.string(),
  kind: z.union([z.literal(1), z.literal(3)]).meta({ description: "1 INTERNAL, 3 CLIENT" }),
  startTimeUnixNano: UnixNano,
  endTimeUnixNano: UnixNano,
  attributes: Attributes,
  events: z.array(z.object({ timeUnixNano: UnixNano, name: z.string(), attributes: Attributes })),
  status: z.object({
    code: z.union([z.literal(0), z.literal(1), z.literal(2)]).meta({ description: "0 UNSET, 1 OK, 2 ERROR" }),
    message: z.string().optional(),
  }),
});

export const OtlpTraceFile = z.object({
  resourceSpans: z.array(
    z.object({
      resource: z.object({ attributes: Attributes }),
      scopeSpans: z.array(
        z.object({ scope: z.object({ name: z.string(), version: z.string() }), spans: z.array(Span) }),
      ),
    }),
  ),
});

/** The exporter's settings as the OpenTelemetry SDK variables give them (defaults applied by the caller). */
export const OtlpExporterSettings = z.object({
  protocol: z.enum(["http/protobuf", "http/json"], {
    error: (issue) =>
      `OTEL_EXPORTER_OTLP_PROTOCOL=${String(issue.input)} is not supported: use http/protobuf (the default) or http/json`,
  }),
  timeoutMs: z.coerce
    .number({ error: "OTEL_EXPORTER_OTLP_TIMEOUT must be a number of milliseconds" })
    .int("OTEL_EXPORTER_OTLP_TIMEOUT must be a whole number of milliseconds")
    .positive("OTEL_EXPORTER_OTLP_TIMEOUT must be above 0")
    .max(600_000, "OTEL_EXPORTER_OTLP_TIMEOUT must be at most 600000 (ten minutes)"),
  compression: z.enum(["gzip", "none"], {
    error: (issue) => `OTEL_EXPORTER_OTLP_COMPRESSION=${String(issue.input)} is not supported: use gzip or none`,
  }),
});
export type OtlpExporterSettings = z.output<typeof OtlpExporterSettings>;
