/**
 * Trace export service: a stored run as OTLP/JSON, and the push of every finished run to an
 * OTLP/HTTP collector (Phoenix, Jaeger, an OpenTelemetry Collector) configured by the standard
 * `OTEL_EXPORTER_OTLP_*` variables: endpoint, protocol (`http/protobuf`, the OTLP default, or
 * `http/json`), headers, timeout and gzip compression. Refusals that the OTLP/HTTP spec calls
 * retryable (429, 502, 503, 504) are retried with backoff, honouring `Retry-After`.
 */
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { Db } from "@/db/client";
import { getRun, getRunEvents } from "@/db/queries/runs";
import { OtlpExporterSettings } from "@/lib/contracts/otlp";
import { type OtlpTrace, runToOtlp } from "@/lib/timeline/otlp";
import packageJson from "@/package.json";
import { processWide } from "../runtime/process-wide";

type Env = Record<string, string | undefined>;

/** `reflect-inspector/<version>`, sent with every push. */
export const EXPORTER_USER_AGENT = `reflect-inspector/${packageJson.version}`;

const serviceName = (env: Env) => env.OTEL_SERVICE_NAME || "reflect-inspector";

/** The run as one OTLP/JSON trace, or null for an unknown run. */
export async function getRunOtlp(db: Db, runId: string, env: Env = process.env): Promise<OtlpTrace | null> {
  const run = await getRun(db, runId);
  if (!run) return null;
  const events = await getRunEvents(db, runId);
  return runToOtlp(events, {
    serviceName: serviceName(env),
    sdkVersion: packageJson.version,
    epochMs: Date.parse(run.createdAt),
  });
}

// ---------- configuration (OpenTelemetry SDK environment variables) ----------

/** The signal-specific variable wins over the generic one (OTLP exporter spec). */
const pick = (env: Env, name: string) => env[`OTEL_EXPORTER_OTLP_TRACES_${name}`] || env[`OTEL_EXPORTER_OTLP_${name}`];

/** `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is used as is; the generic endpoint gets `/v1/traces` (OTLP spec). */
export function tracesEndpoint(env: Env): string | null {
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT) return `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`;
  return null;
}

/** `key=value,key2=value2`, values URL-encoded (OTLP spec); the traces list overrides the generic one. */
function otlpHeaders(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"]) {
    for (const pair of (env[name] ?? "").split(",")) {
      const eq = pair.indexOf("=");
      if (eq <= 0) continue;
      const key = pair.slice(0, eq).trim().toLowerCase();
      let value: string;
      try {
        value = decodeURIComponent(pair.slice(eq + 1).trim());
      } catch {
        throw new Error(`${name}: the value of "${key}" is not valid URL encoding`);
      }
      // A header value cannot hold line breaks or other control characters (fetch would refuse it).
      if (
        [...value].some((c) => {
          const code = c.charCodeAt(0);
          return (code < 0x20 && code !== 0x09) || code === 0x7f;
        })
      ) {
        throw new Error(`${name}: the value of "${key}" holds a control character`);
      }
      out[key] = value;
    }
  }
  return out;
}

/** The collector URL, checked once: an http(s) URL without credentials (they would be logged). */
function collectorUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error("OTEL_EXPORTER_OTLP_ENDPOINT is not a URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new Error(`OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL, not ${parsed.protocol}`);
  }
  if (parsed.username || parsed.password) {
    throw new Error(
      "OTEL_EXPORTER_OTLP_ENDPOINT must not carry credentials; put them in OTEL_EXPORTER_OTLP_HEADERS (authorization=…)",
    );
  }
  return url;
}

export interface ExporterConfig extends OtlpExporterSettings {
  url: string;
  headers: Record<string, string>;
}

/** The exporter as the environment configures it; null without an endpoint; throws on a bad value. */
export function exporterConfig(env: Env): ExporterConfig | null {
  const url = tracesEndpoint(env);
  if (!url) return null;
  const settings = OtlpExporterSettings.safeParse({
    protocol: pick(env, "PROTOCOL") || "http/protobuf",
    timeoutMs: pick(env, "TIMEOUT") || 10_000,
    compression: pick(env, "COMPRESSION") || "none",
  });
  if (!settings.success) throw new Error(settings.error.issues.map((i) => i.message).join("; "));
  return { url: collectorUrl(url), headers: otlpHeaders(env), ...settings.data };
}

// ---------- transport ----------

/** Statuses the OTLP/HTTP spec names as retryable; everything else is final. */
const RETRYABLE = new Set([429, 502, 503, 504]);
const MAX_ATTEMPTS = 5;
const INITIAL_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 5_000;

/** `Retry-After` as seconds or an HTTP date, in milliseconds; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Exponential backoff with ±20% jitter, capped (the OpenTelemetry JS exporters' schedule), in whole ms. */
function backoffMs(attempt: number): number {
  const base = Math.min(INITIAL_BACKOFF_MS * 1.5 ** (attempt - 1), MAX_BACKOFF_MS);
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

async function encodeBody(
  trace: OtlpTrace,
  config: ExporterConfig,
): Promise<{ body: Uint8Array<ArrayBuffer>; type: string }> {
  // The protobuf encoder (the OpenTelemetry packages) loads on the first push: a process that
  // exports nothing — most CLI calls — does not pay for it at start-up.
  const raw =
    config.protocol === "http/protobuf"
      ? (await import("../../timeline/otlp-protobuf")).encodeTraceProtobuf(trace)
      : new TextEncoder().encode(JSON.stringify(trace));
  // A copy over a plain ArrayBuffer: what fetch takes as a body.
  const body = Uint8Array.from(config.compression === "gzip" ? await promisify(gzip)(raw) : raw);
  return { body, type: config.protocol === "http/protobuf" ? "application/x-protobuf" : "application/json" };
}

/** The time the exporter reads and waits on; tests pass one they can step through without sleeping. */
export interface ExportClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realClock: ExportClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * Sends one trace; the whole export, retries included, stays within the configured timeout.
 * Throws with the collector's last answer when it refuses or the time runs out.
 */
export async function sendTrace(trace: OtlpTrace, config: ExporterConfig, clock = realClock): Promise<void> {
  const { body, type } = await encodeBody(trace, config);
  // The app names itself (OTLP exporter spec: exporters SHOULD send a User-Agent naming the
  // exporter and its version); a configured user-agent header still wins.
  const headers: Record<string, string> = {
    "user-agent": EXPORTER_USER_AGENT,
    ...config.headers,
    "content-type": type,
  };
  if (config.compression === "gzip") headers["content-encoding"] = "gzip";
  const deadline = clock.now() + config.timeoutMs;
  let last = "";
  let attempts = 0;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const remaining = deadline - clock.now();
    if (remaining <= 0) break;
    attempts = attempt;
    let wait: number;
    const answer = await fetch(config.url, {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(remaining),
    }).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
    if (answer instanceof Response) {
      if (answer.ok) {
        await answer.body?.cancel();
        return;
      }
      last = `HTTP ${answer.status} ${(await answer.text().catch(() => "")).slice(0, 200)}`.trim();
      if (!RETRYABLE.has(answer.status)) throw new Error(`OTLP push to ${config.url} failed: ${last}`);
      wait = retryAfterMs(answer.headers.get("retry-after"), clock.now()) ?? backoffMs(attempt);
    } else if (answer.name === "TimeoutError" || answer.name === "AbortError") {
      last = `no answer within ${config.timeoutMs} ms`;
      break;
    } else {
      // A refused or reset connection is transient too: the collector may be restarting.
      last = (answer.cause as Error | undefined)?.message ?? answer.message;
      wait = backoffMs(attempt);
    }
    if (attempt === MAX_ATTEMPTS || clock.now() + wait >= deadline) break;
    await clock.sleep(wait);
  }
  throw new Error(
    `OTLP push to ${config.url} failed: ${last} (gave up after ${attempts} attempt${attempts === 1 ? "" : "s"} within ${config.timeoutMs} ms)`,
  );
}

/**
 * Sends the run's trace to the configured collector. Returns false when no endpoint is set;
 * throws when the configuration is wrong or the collector refuses it.
 */
export async function pushRunTrace(
  db: Db,
  runId: string,
  env: Env = process.env,
  clock?: ExportClock,
): Promise<boolean> {
  const config = exporterConfig(env);
  if (!config) return false;
  const trace = await getRunOtlp(db, runId, env);
  if (!trace) throw new Error(`run ${runId} not found`);
  await sendTrace(trace, config, clock);
  return true;
}

/** Pushes in flight, so a process that is about to exit (the CLI) can wait for them. */
const pending = new Set<Promise<void>>();

/**
 * At most this many pushes talk to the collector at once; up to OTLP_MAX_WAITING more wait their
 * turn; past that a run's trace is dropped (one log line per episode), so a hung collector holds a
 * bounded number of connections however many runs finish (it held one per run: 240 after 240).
 */
export const OTLP_MAX_PUSHES = 4;
export const OTLP_MAX_WAITING = 100;

const pushes = processWide("otlp-pushes", () => ({
  active: 0,
  waiting: [] as (() => void)[],
  /** Traces dropped since the queue was last empty; the first drop of an episode is logged. */
  dropped: 0,
}));

/** Pushes talking to the collector, waiting, and dropped in the current episode (health, tests). */
export function otlpPushState(): { active: number; waiting: number; dropped: number } {
  return { active: pushes.active, waiting: pushes.waiting.length, dropped: pushes.dropped };
}

/** After a run finishes: a collector being down must never fail the run, so failures are logged. */
export function pushRunTraceInBackground(db: Db, runId: string, env: Env = process.env): void {
  if (!tracesEndpoint(env)) return;
  if (pushes.active >= OTLP_MAX_PUSHES && pushes.waiting.length >= OTLP_MAX_WAITING) {
    if (pushes.dropped++ === 0) {
      console.error(
        `OTLP export: ${OTLP_MAX_PUSHES} pushes in flight and ${OTLP_MAX_WAITING} waiting (is the collector at ${tracesEndpoint(env)} hung?); traces of runs finishing now are dropped until it catches up`,
      );
    }
    return;
  }
  const push = (async () => {
    if (pushes.active >= OTLP_MAX_PUSHES) await new Promise<void>((resolve) => pushes.waiting.push(resolve));
    pushes.active++;
    try {
      await pushRunTrace(db, runId, env);
    } catch (err) {
      console.error(`OTLP export of run ${runId} failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      pushes.active--;
      const next = pushes.waiting.shift();
      if (next) next();
      else if (pushes.active === 0) pushes.dropped = 0;
    }
  })();
  pending.add(push);
  void push.finally(() => pending.delete(push));
}

/** Resolves once every push started so far has been delivered or given up (logged). */
export async function flushTracePushes(): Promise<void> {
  while (pending.size > 0) await Promise.all([...pending]);
}
