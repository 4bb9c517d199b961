/**
 * Trace export service: a stored run as OTLP/JSON, and the optional push of every finished run
 * to an OTLP/HTTP collector (Phoenix, Jaeger, an OpenTelemetry Collector) named by the standard
 * `OTEL_EXPORTER_OTLP_*` variables.
 */
import type { Db } from "@/db/client";
import { getRun, getRunEvents } from "@/db/runs";
import { type OtlpTrace, runToOtlp } from "@/lib/timeline/otlp";

type Env = Record<string, string | undefined>;

const serviceName = (env: Env) => env.OTEL_SERVICE_NAME || "reflect-inspector";

/** The run as one OTLP/JSON trace, or null for an unknown run. */
export async function getRunOtlp(db: Db, runId: string, env: Env = process.env): Promise<OtlpTrace | null> {
  const run = await getRun(db, runId);
  if (!run) return null;
  const events = await getRunEvents(db, runId);
  return runToOtlp(events, { serviceName: serviceName(env), epochMs: Date.parse(run.createdAt) });
}

/** `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is used as is; the generic endpoint gets `/v1/traces` (OTLP spec). */
export function tracesEndpoint(env: Env): string | null {
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT) return `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`;
  return null;
}

/** `OTEL_EXPORTER_OTLP_HEADERS`: `key=value,key2=value2`, values URL-encoded (OTLP spec). */
function otlpHeaders(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (env.OTEL_EXPORTER_OTLP_HEADERS ?? "").split(",")) {
    const eq = pair.indexOf("=");
    if (eq <= 0) continue;
    out[pair.slice(0, eq).trim()] = decodeURIComponent(pair.slice(eq + 1).trim());
  }
  return out;
}

/**
 * Sends the run's trace to the configured collector. Returns false when no endpoint is set;
 * throws when the collector refuses it.
 */
export async function pushRunTrace(db: Db, runId: string, env: Env = process.env): Promise<boolean> {
  const url = tracesEndpoint(env);
  if (!url) return false;
  const trace = await getRunOtlp(db, runId, env);
  if (!trace) throw new Error(`run ${runId} not found`);
  const res = await fetch(url, {
    method: "POST",
    headers: { ...otlpHeaders(env), "content-type": "application/json" },
    body: JSON.stringify(trace),
    signal: AbortSignal.timeout(10_000),
  });
  if (!res.ok) throw new Error(`OTLP push to ${url} failed: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
  return true;
}

/** Fire-and-forget after a run finishes: a collector being down must never fail the run. */
export function pushRunTraceInBackground(db: Db, runId: string, env: Env = process.env): void {
  if (!tracesEndpoint(env)) return;
  pushRunTrace(db, runId, env).catch((err: unknown) => {
    console.error(`OTLP export of run ${runId} failed: ${err instanceof Error ? err.message : String(err)}`);
  });
}
