/**
 * A run's event log as one OTLP/JSON trace, following the OpenTelemetry GenAI semantic
 * conventions (invoke_agent → chat / execute_tool → search_memory → retrieval) with OpenInference span kinds
 * alongside so Phoenix renders it: a view over the run walk (walk.ts). Pure: ids come from a small
 * hash of the run id and event seq, so exporting the same run twice yields the same trace.
 */
import type { RunEvent } from "@/lib/reflect/events";
import { attrs, nanos, type OtlpEvent, type OtlpSpan, type OtlpTrace, spanIdOf, traceIdOf } from "./otlp-attributes";
import { chatSpan, type Placed, probeSpan, rootSpan, type SpanScope, toolSpans, verdictEvent } from "./otlp-spans";
import { walkRun, walkSteps } from "./walk";

export type { OtlpAnyValue, OtlpAttribute, OtlpEvent, OtlpSpan, OtlpTrace } from "./otlp-attributes";
export { traceIdOf } from "./otlp-attributes";
export { errorType } from "./otlp-spans";

export interface OtlpOptions {
  serviceName?: string;
  /** `telemetry.sdk.version`: the exporting app's version (the server passes package.json's). */
  sdkVersion?: string;
  /** Wall-clock epoch (ms) of the run's `at = 0`, e.g. the run's createdAt. */
  epochMs?: number;
}

export const OTLP_SCOPE = { name: "reflect-inspector", version: "1" } as const;

/** The run's trace: the root span, then every step's spans and the verdicts as root events, in log order. */
export function runToOtlp(events: readonly RunEvent[], options: OtlpOptions = {}): OtlpTrace {
  const walk = walkRun(events);
  const epochMs = options.epochMs ?? 0;
  const runId = walk.runId ?? "unknown";
  const s = walk.started?.payload;
  const sc: SpanScope = {
    traceId: traceIdOf(runId),
    runId,
    rootId: spanIdOf(runId, "root"),
    time: (at) => nanos(epochMs, at),
    lastAt: walk.lastAt,
    modelName: s?.model.name ?? "unknown",
    provider: s ? (s.model.kind === "openai" ? "openai" : `reflect.${s.model.kind}`) : "unknown",
    bankId: s?.bankId ?? "unknown",
  };
  const spans: Placed<OtlpSpan>[] = [];
  const rootEvents: Placed<OtlpEvent>[] = [];
  for (const step of walkSteps(walk)) {
    switch (step.kind) {
      case "model":
        // A response logged without its request has no span to answer.
        if (step.request) spans.push({ seq: step.request.seq, item: chatSpan(sc, step.request, step.response) });
        break;
      case "tool":
        // A result logged without its call has no span to close.
        if (step.call) spans.push(...toolSpans(sc, step.call, step.result));
        break;
      case "verdict": {
        const { name, record } = verdictEvent(step.event);
        rootEvents.push({ seq: step.seq, item: { timeUnixNano: sc.time(step.at), name, attributes: attrs(record) } });
        break;
      }
      case "probe":
        spans.push({ seq: step.seq, item: probeSpan(sc, step.event) });
        break;
      default: {
        const unknown: never = step;
        throw new Error(`unknown step ${JSON.stringify(unknown)}`);
      }
    }
  }
  const inLogOrder = <T>(placed: Placed<T>[]) => placed.sort((x, y) => x.seq - y.seq).map((p) => p.item);
  const root = rootSpan(sc, walk, inLogOrder(rootEvents));

  return {
    resourceSpans: [
      {
        resource: {
          attributes: attrs({
            "service.name": options.serviceName ?? "reflect-inspector",
            "telemetry.sdk.name": "reflect-inspector",
            "telemetry.sdk.language": "nodejs",
            "telemetry.sdk.version": options.sdkVersion ?? "unknown",
          }),
        },
        scopeSpans: [{ scope: { ...OTLP_SCOPE }, spans: [root, ...inLogOrder(spans)] }],
      },
    ],
  };
}
