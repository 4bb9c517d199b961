/**
 * Ask Hindsight, inspect here (docs/hindsight.md#ask-hindsight): one question sent to a Hindsight
 * server's `POST /v1/default/banks/{bank_id}/reflect` with its evidence and tool-call trace asked
 * for (`include.facts`, `include.tool_calls`), stored as an imported run — the same spans Hindsight's
 * own OTel exporter writes (`hindsight.reflect_tool_exec.<tool>` with `hindsight.tool.*`), read by
 * the OTLP import (lib/timeline/otlp-import.ts) — so it opens in the timeline and compares, step by
 * step, with a run of this engine on the imported bank. What the response lacks (model messages,
 * iterations, freshness verdicts) is shown as unknown, never invented.
 */
import { randomBytes } from "node:crypto";
import type { Db } from "@/db/client";
import { storeImportedTrace } from "@/db/queries/imported-runs";
import { AppError } from "@/lib/contracts/errors";
import { type AskHindsightResult, HsReflectResponse } from "@/lib/contracts/hindsight";
import type { Budget } from "@/lib/reflect/domain";
import { type Attrs, type AttrValue, type ImportedSpan, textOfDeep, traceToRun } from "@/lib/timeline/otlp-import";
import { checkLocalBankId, checkRemoteInput, HindsightClient, parseHindsightBaseUrl } from "./hindsight-import";

export interface AskHindsightOptions {
  baseUrl: string;
  bankId: string;
  /** The bank the run is filed under here (default: the Hindsight id), e.g. the imported bank. */
  localBankId?: string;
  apiKey?: string;
  question: string;
  budget?: Budget;
  /** The one request, whole body included (default 120 s: a reflect runs a model loop). */
  timeoutMs?: number;
}

const hex = (bytes: number) => randomBytes(bytes).toString("hex");
const nanos = (ms: number) => `${BigInt(Math.round(ms)) * 1_000_000n}`;

/** A JSON value as a span attribute (objects and arrays as JSON text, as exporters write them). */
const asAttr = (v: unknown): AttrValue => (typeof v === "string" ? v : JSON.stringify(v ?? null));

export async function askHindsight(db: Db, options: AskHindsightOptions): Promise<AskHindsightResult> {
  const base = parseHindsightBaseUrl(options.baseUrl);
  checkRemoteInput(options.bankId, options.apiKey);
  const question = options.question.trim();
  if (!question)
    throw new AppError("invalid_input", "the question must not be empty", { fieldErrors: { question: ["empty"] } });
  const bankHere = checkLocalBankId(options.localBankId ?? options.bankId);
  const budget = options.budget ?? "mid";
  const client = new HindsightClient(base, options.apiKey || undefined, options.timeoutMs ?? 120_000);
  const started = Date.now();
  // Stored as an imported run, its text valid text as a trace's is (a NUL would cut the answer).
  const answer = textOfDeep(
    await client.post(
      `/v1/default/banks/${encodeURIComponent(options.bankId)}/reflect`,
      { query: question, budget, include: { facts: {}, tool_calls: {} } },
      HsReflectResponse,
    ),
  );
  const finished = Math.max(Date.now(), started + 1);

  const traceId = hex(16);
  const rootId = hex(8);
  const resource: Attrs = { "service.name": "hindsight", "hindsight.base_url": `${base.origin}${base.pathname}` };
  const scope = { name: "reflect-inspector/ask-hindsight", version: null };
  const based = answer.based_on;
  const cited = (pick: (type: string | null | undefined) => boolean) =>
    (based?.memories ?? []).flatMap((m) => (m.id && pick(m.type) ? [m.id] : []));
  const citations = {
    memory_ids: cited((t) => t !== "observation"),
    observation_ids: cited((t) => t === "observation"),
    mental_model_ids: (based?.mental_models ?? []).map((m) => m.id),
  };
  const root: ImportedSpan = {
    traceId,
    spanId: rootId,
    parentSpanId: null,
    name: "hindsight.reflect",
    kind: 3,
    startNs: nanos(started),
    endNs: nanos(finished),
    attributes: {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "hindsight",
      "hindsight.query": question,
      "hindsight.bank_id": bankHere,
      "reflect.budget": budget,
      "output.value": answer.text,
      "reflect.citations.memory_ids": citations.memory_ids,
      "reflect.citations.observation_ids": citations.observation_ids,
      "reflect.citations.mental_model_ids": citations.mental_model_ids,
    },
    events: [],
    status: { code: 0, message: null },
    resource,
    scope,
  };
  // Tool calls in the order Hindsight lists them, laid end to end from the request's start: the
  // response carries durations, not start times.
  let at = started;
  const tools: ImportedSpan[] = (answer.trace?.tool_calls ?? []).map((call, i) => {
    const start = Math.min(at, finished);
    at = Math.min(start + call.duration_ms, finished);
    return {
      traceId,
      spanId: hex(8),
      parentSpanId: rootId,
      name: `hindsight.reflect_tool_exec.${call.tool}`,
      kind: 1,
      startNs: nanos(start),
      endNs: nanos(Math.max(at, start)),
      attributes: {
        "hindsight.tool.name": call.tool,
        "hindsight.tool.id": `call_${i + 1}`,
        "hindsight.tool.arguments": asAttr(call.input),
        "hindsight.tool.duration_ms": call.duration_ms,
        ...(call.output ? { "output.value": asAttr(call.output) } : {}),
      },
      events: [],
      status: { code: 0, message: null },
      resource,
      scope,
    };
  });
  const stored = await storeImportedTrace(db, traceId, [root, ...tools], traceToRun);
  return {
    runId: stored.runId,
    bankId: bankHere,
    answer: answer.text,
    toolCalls: tools.length,
    citations: citations.memory_ids.length + citations.observation_ids.length + citations.mental_model_ids.length,
  };
}
