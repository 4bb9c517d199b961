/** What `cli reflect` prints: one JSON object (--json) or a human summary with a per-iteration trace. */
import { type ReflectJson, toRunResult } from "@/lib/contracts/runs";
import type { RunEvent } from "@/lib/reflect/events";
import type { ReflectResult } from "@/lib/reflect/request";
import { foldRun, type TimelineRow } from "@/lib/timeline/fold";

export function toReflectJson(runId: string, result: ReflectResult, events: RunEvent[]): ReflectJson {
  return { ...toRunResult(runId, result), events };
}

const TIER_LABEL = { mental_models: "mental models", observations: "observations", raw_facts: "raw facts" } as const;

function rowLine(row: TimelineRow): string {
  switch (row.kind) {
    case "tier": {
      const r = row.result;
      const tier = row.tier ? TIER_LABEL[row.tier] : "unknown tool";
      return `  ${row.tool} [${tier}] "${row.query ?? ""}" → ${r ? `${r.outcome}, ${r.count} result(s)` : "pending"}`;
    }
    case "freshness":
      return `  freshness check → ${row.verdict === "release" ? "release to auto" : "keep forcing"} (${row.why})`;
    case "steering":
      return `  ${row.action}: ${row.text.split("\n")[0]}`;
    case "guard":
      return row.action === "output"
        ? `  output guard: ${row.pattern} → ${row.outcome}`
        : row.action === "done_rejected"
          ? `  done rejected: ${row.why}`
          : row.action === "provider_warning"
            ? `  provider warning: ${row.message}`
            : `  dropped calls: ${row.calls.map((c) => c.name).join(", ")}`;
    case "citations":
      return `  citations: ${row.kept.memory_ids.length + row.kept.observation_ids.length + row.kept.mental_model_ids.length} kept, ${row.dropped.length} dropped${row.ungrounded ? " (ungrounded)" : ""}`;
    case "reasoning":
      return `  reasoning: ${row.chars.toLocaleString("en-US")} chars`;
    default: {
      // A new row kind must get its trace line here: this stops compiling until it does.
      const unhandled: never = row;
      throw new Error(`no trace line for row ${JSON.stringify(unhandled)}`);
    }
  }
}

export function formatReflectHuman(runId: string, result: ReflectResult, events: RunEvent[]): string {
  const view = foldRun(events);
  const out: string[] = [];
  out.push(`Run ${runId}: ${result.status}${result.flags.length ? ` [${result.flags.join(", ")}]` : ""}`);
  // Retries and tool-choice downgrades are requests too (issue 27): shown when there were any.
  const requests =
    result.modelRequests !== undefined && result.modelRequests !== result.llmCalls
      ? ` (${result.modelRequests} model requests, retries included)`
      : "";
  out.push(
    `${result.llmCalls} LLM call(s)${requests}, tokens ${result.usage.inputTokens} in / ${result.usage.outputTokens} out`,
  );
  if (result.error) out.push(`Error (${result.error.phase}): ${result.error.message}`);
  out.push("", result.answer, "");
  const kept = view.citations.filter((c) => c.status === "kept");
  if (kept.length) {
    out.push("Citations:");
    for (const c of kept)
      out.push(`  [${c.id}] (${TIER_LABEL[c.tier]}) ${(c.text ?? "").replace(/\s+/g, " ").slice(0, 200)}`);
  }
  for (const d of result.dropped) out.push(`  dropped ${d.id}: ${d.reason}`);
  out.push("", "Trace:");
  for (const row of view.rowsBefore) out.push(rowLine(row));
  for (const it of view.iterations) {
    const how = it.replayed ? "replayed" : it.mode === "forced" ? `forced ${it.forcedTool}` : "auto";
    out.push(` #${it.index} ${how} · ${Math.round(it.latencyMs)} ms · ${it.tokensIn}/${it.tokensOut} tokens`);
    for (const row of it.rows) out.push(rowLine(row));
  }
  for (const row of view.rowsAfter) out.push(rowLine(row));
  return out.join("\n");
}
