/**
 * §4 LLM round-trips per reflect, side by side with the reference system. Two sources: the engine
 * test scenarios (scripted model, in-memory Atlas bank) and the offline model through the run
 * service on the demo bank (plus an empty bank and the demo bank without mental models).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createOfflineModel } from "@/lib/llm";
import { runReflect } from "@/lib/reflect/engine";
import { importBundle } from "@/lib/server/services/bundle-io";
import { startRun } from "@/lib/server/services/runs";
import { harness, request } from "@/test/unit/reflect/harness";
import { SCENARIOS, type ScenarioName } from "@/test/unit/reflect/scenarios";
import { type BenchRow, openBenchDb, row } from "./report";

interface Case {
  label: string;
  scenario: ScenarioName;
  /** The reference's calls: it forces three tier rounds before its short-circuit can apply, then answers; an empty bank loops to the low budget (5 turns). It has no facts mode, so that question costs a full loop. */
  reference: number;
  /** Our own goal, when tighter than "never more than the reference". */
  goal?: number;
}

const CASES: Case[] = [
  { label: "fresh model", scenario: "fresh", reference: 4, goal: 2 },
  { label: "stale model", scenario: "stale", reference: 4 },
  { label: "no models", scenario: "noModels", reference: 4 },
  { label: "empty bank", scenario: "emptyBank", reference: 5, goal: 0 },
  { label: "facts mode", scenario: "facts", reference: 4, goal: 0 },
];

function callsRow(c: Case, source: string, calls: number, status: string): BenchRow {
  const limit = Math.min(c.reference, c.goal ?? c.reference);
  return row(
    "4 round-trips",
    `${c.label}: LLM calls, ${source}`,
    calls,
    "",
    { target: `≤ ${limit} (reference ${c.reference})`, met: calls <= limit },
    status,
  );
}

export async function benchRoundTrips(log: (line: string) => void): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const c of CASES) {
    const { memory, model, overrides } = SCENARIOS[c.scenario]();
    const result = await runReflect(harness(memory, model).deps, request(overrides));
    rows.push(callsRow(c, "scripted", result.llmCalls, result.status));
  }

  const { db, cleanup } = await openBenchDb("round-trips");
  try {
    const demo = JSON.parse(readFileSync(resolve(process.cwd(), "db/demo/demo-bank.json"), "utf8"));
    await importBundle(db, demo);
    await importBundle(db, { ...demo, bank: { ...demo.bank, id: "no-models" }, mentalModels: [] });
    await importBundle(db, {
      ...demo,
      bank: { ...demo.bank, id: "empty" },
      facts: [],
      observations: [],
      mentalModels: [],
    });
    const offline: Record<ScenarioName, { bankId: string; question: string; mode?: "facts" } | undefined> = {
      fresh: { bankId: "demo", question: "What pricing tiers did we decide on?" },
      stale: { bankId: "demo", question: "What is the Atlas launch date and what does the launch depend on?" },
      noModels: { bankId: "no-models", question: "What is the Atlas launch date and what does the launch depend on?" },
      emptyBank: { bankId: "empty", question: "What is the Atlas launch date?" },
      facts: { bankId: "demo", question: "What is blocking the SSO rollout?", mode: "facts" },
      halted: undefined,
      noEvidence: undefined,
      degraded: undefined,
    };
    for (const c of CASES) {
      const input = offline[c.scenario]!;
      const started = await startRun(
        db,
        { mode: "synthesize", ...input, budget: "low" },
        { model: createOfflineModel() },
      );
      const result = await started.finished;
      rows.push(callsRow(c, "offline model, demo bank", result.llmCalls, result.status));
    }
  } finally {
    cleanup();
  }
  log(`  ${rows.filter((r) => r.met).length}/${rows.length} scenarios within target`);
  return rows;
}
