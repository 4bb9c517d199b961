/**
 * The OTLP/JSON shapes the trace export writes, and its building blocks: deterministic trace and
 * span ids (a small hash of the run id and a key, so exporting a run twice yields the same trace),
 * attribute values as an SDK would send them, and nanosecond timestamps. Pure (docs/tracing.md).
 */
import type { Tier } from "@/lib/reflect/domain";

export type OtlpAnyValue =
  | { stringValue: string }
  | { intValue: string }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values: OtlpAnyValue[] } };

export interface OtlpAttribute {
  key: string;
  value: OtlpAnyValue;
}

export interface OtlpEvent {
  timeUnixNano: string;
  name: string;
  attributes: OtlpAttribute[];
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 INTERNAL, 3 CLIENT (OTLP SpanKind enum). */
  kind: 1 | 3;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpAttribute[];
  events: OtlpEvent[];
  /** 0 UNSET, 1 OK, 2 ERROR. */
  status: { code: 0 | 1 | 2; message?: string };
}

export interface OtlpTrace {
  resourceSpans: {
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: { scope: { name: string; version: string }; spans: OtlpSpan[] }[];
  }[];
}

/** A tier of a bank is the data source a tier search reads (GenAI `gen_ai.data_source.id`). */
export const dataSourceId = (bankId: string, tier: Tier) => `${bankId}/${tier}`;

// ---------- deterministic ids ----------

/** 32-bit FNV-1a over UTF-16 code units, seeded so several lanes give independent words. */
function fnv1a(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // xorshift finalizer: spreads short, similar inputs (seq 1 vs 2) across all bits.
  h ^= h << 13;
  h ^= h >>> 17;
  h ^= h << 5;
  return h >>> 0;
}

function hexId(text: string, words: number): string {
  let out = "";
  for (let i = 0; i < words; i++)
    out += fnv1a(text, i * 0x9e3779b1)
      .toString(16)
      .padStart(8, "0");
  // An all-zero id is invalid in OTLP.
  return /^0+$/.test(out) ? `${out.slice(0, -1)}1` : out;
}

export const traceIdOf = (runId: string) => hexId(`trace:${runId}`, 4);
export const spanIdOf = (runId: string, key: string) => hexId(`span:${runId}:${key}`, 2);

// ---------- attributes ----------

/** A number always sent as a double (a score of 1 stays 1.0, not the int 1). */
export interface Double {
  double: number;
}
export const double = (n: number): Double => ({ double: n });

export type AttrValue = string | number | boolean | Double | string[] | null | undefined;

function anyValue(v: string | number | boolean | Double): OtlpAnyValue {
  if (typeof v === "string") return { stringValue: v };
  if (typeof v === "boolean") return { boolValue: v };
  if (typeof v === "object") return { doubleValue: v.double };
  return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
}

/** Null and undefined are left out, as an SDK would not set them. */
export function attrs(record: Record<string, AttrValue>): OtlpAttribute[] {
  const out: OtlpAttribute[] = [];
  for (const [key, v] of Object.entries(record)) {
    if (v === null || v === undefined) continue;
    out.push({ key, value: Array.isArray(v) ? { arrayValue: { values: v.map(anyValue) } } : anyValue(v) });
  }
  return out;
}

export function nanos(epochMs: number, at: number): string {
  const ms = epochMs + at;
  const whole = Math.floor(ms);
  // BigInt keeps nanosecond precision that a double would lose at epoch scale.
  return (BigInt(whole) * BigInt(1_000_000) + BigInt(Math.round((ms - whole) * 1_000_000))).toString();
}
