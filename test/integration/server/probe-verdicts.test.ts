/**
 * The missed-evidence probe's verdicts over the real store (docs/engine.md#the-missed-evidence-probe),
 * as the engine now runs it (the question's searches started with the run, the run's own
 * deeper-than-seen searches read instead of searched again, one store call per tier): a scripted
 * model declines or answers on the demo bank, and the run is flagged `missed_evidence` exactly when
 * the evidence was there and the run did not use it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import type { ModelRequest, ReflectResult } from "@/lib/reflect";
import { ensureDemoBank } from "@/lib/server/runtime/db";
import { startRun } from "@/lib/server/services/runs";
import { call, done, forcedTool, reply, ScriptedModel } from "@/test/fixtures/scripted-model";
import { openTempDb } from "../db/temp-db";

let db: Db;
let cleanup: () => void;
beforeAll(async () => {
  ({ db, cleanup } = await openTempDb("probe-verdicts"));
  expect(await ensureDemoBank(db)).toBe(true);
}, 120_000);
afterAll(() => cleanup());

const LAUNCH = "When did Atlas launch?";
/** Memories of the demo bank that answer LAUNCH (test/fixtures/offline-questions.ts). */
const ANSWERS = ["f-152", "o-001"];
const DECLINE = "I could not find anything about that in the bank.";

type Search = { tool: string; query: string; max_results?: number };

/** Forced searches use `forcedQuery`; under auto the model makes `searches` one by one, then `finish`. */
async function runWith(
  question: string,
  forcedQuery: string,
  searches: Search[],
  finish: (req: ModelRequest) => ReturnType<typeof reply>,
): Promise<{ result: ReflectResult; seen: string[] }> {
  let next = 0;
  const model = new ScriptedModel((req) => {
    const forced = forcedTool(req);
    if (forced === "done") return finish(req);
    if (forced) return reply(call(forced, { query: forcedQuery }));
    const s = searches[next++];
    return s ? reply(call(s.tool, { query: s.query, max_results: s.max_results })) : finish(req);
  });
  const { finished } = await startRun(db, { mode: "synthesize", bankId: "demo", question }, { model });
  const result = await finished;
  // What the model was shown: every id in the tool results it received.
  const seen = model.requests.flatMap((r) =>
    r.messages.filter((m) => m.role === "tool").flatMap((m) => String(m.content).match(/\b(?:f|o|mm)-[\w-]+/g) ?? []),
  );
  return { result, seen };
}

const declines = () => reply(done(DECLINE));
const probeIds = (r: ReflectResult) => (r.probe?.hits ?? []).filter((h) => h.strong).map((h) => h.id);

describe("the probe's verdicts over the demo bank", () => {
  it("flags a decline when the evidence was never retrieved (the run's searches found nothing)", async () => {
    const { result, seen } = await runWith(LAUNCH, "zebra quasar", [], declines);
    expect(["done", "no_evidence"]).toContain(result.status);
    expect(ANSWERS.some((id) => seen.includes(id))).toBe(false);
    expect(result.flags).toContain("missed_evidence");
    expect(probeIds(result).some((id) => ANSWERS.includes(id))).toBe(true);
  });

  it("flags a decline when the run searched other words", async () => {
    const { result, seen } = await runWith(
      LAUNCH,
      "pricing seats",
      [{ tool: "recall", query: "annual billing discount" }],
      declines,
    );
    expect(ANSWERS.some((id) => seen.includes(id))).toBe(false);
    expect(result.flags).toContain("missed_evidence");
    expect(probeIds(result).some((id) => ANSWERS.includes(id))).toBe(true);
  });

  it("flags a decline after a deep search the result cap cut short (the probe reads that search, drops what was shown)", async () => {
    // 50 hits of these words fill more than the 12,000-character result cap: the model sees some.
    const deep = "launch customers dashboards Atlas";
    const { result, seen } = await runWith(
      LAUNCH,
      "zebra quasar",
      [{ tool: "recall", query: deep, max_results: 50 }],
      declines,
    );
    expect(seen.length).toBeGreaterThan(0);
    expect(result.flags).toContain("missed_evidence");
    // Hits of the deep search the model was not shown are among the probe's, named by that search.
    // The deep search is one of the probe's (read from the run, not searched again), and nothing the
    // model was shown comes back as missed.
    expect(result.probe?.queries).toContain(deep);
    expect(result.probe?.errors).toEqual([]);
    expect((result.probe?.hits ?? []).filter((h) => seen.includes(h.id))).toEqual([]);
  });

  it("flags a decline when the evidence is in a tier the run did not search", async () => {
    // Forced searches of every tier with other words; then only mental models with the question's own.
    const { result, seen } = await runWith(
      LAUNCH,
      "zebra quasar",
      [{ tool: "search_mental_models", query: "Atlas launch" }],
      declines,
    );
    expect(ANSWERS.some((id) => seen.includes(id))).toBe(false);
    expect(result.flags).toContain("missed_evidence");
    const hit = result.probe?.hits.find((h) => ANSWERS.includes(h.id) && h.strong);
    expect(hit?.tier === "raw_facts" || hit?.tier === "observations").toBe(true);
  });

  it("does not flag a run that saw the evidence and cited it", async () => {
    const { result, seen } = await runWith(LAUNCH, "Atlas launch", [{ tool: "recall", query: "Atlas launch" }], () =>
      reply(done("Atlas launched on October 20. [f-152]", { memory_ids: ["f-152"] })),
    );
    expect(seen).toContain("f-152");
    expect(result.citations.memory_ids).toEqual(["f-152"]);
    expect(result.flags).not.toContain("missed_evidence");
  });

  it("does not flag a right decline: nothing in the bank answers the question", async () => {
    const { result } = await runWith(
      "What did Ana name her puppy?",
      "puppy name",
      [{ tool: "recall", query: "Ana puppy" }],
      declines,
    );
    expect(result.status === "done" || result.status === "no_evidence").toBe(true);
    expect(result.probe).toBeDefined();
    expect(result.probe?.errors).toEqual([]);
    expect(result.probe?.strong).toBe(false);
    expect(result.flags).not.toContain("missed_evidence");
  });
});
