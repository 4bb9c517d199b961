/**
 * `npm run bench -- locomo [--data path]`: the product on real conversational memory. LoCoMo
 * (Maharana et al., ACL 2024) is imported one bank per conversation (lib/experiments/locomo.ts);
 * every question is asked as it is written. Reported per question category (1 multi-hop,
 * 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial):
 * - raw-fact recall with the question as the query: the share of a question's evidence turns among
 *   the top 5 / 10 / 25, and its latency; and what each retrieval technique adds (each switched
 *   off in turn);
 * - offline reflect runs, without and with the session summaries as fresh mental models: LoCoMo's
 *   score (token F1 of the short answer for categories 1–4, "not mentioned" for 5), F1 of the whole
 *   answer, the gold answer contained in the answer, evidence retrieved by the run and cited by
 *   it, model calls and latency.
 * The data is read from a path (default: the shared development half beside the project); it is
 * never committed (CC BY-NC).
 */

import type { Db } from "@/db/client";
import { CONVERSATION_TUNING, type ConversationTuning } from "@/db/queries/conversation-rank";
import { createMemoryStore } from "@/db/queries/memory-store";
import { searchFacts } from "@/db/queries/search";
import { containsAnswer, multiPartF1, tokenF1 } from "@/lib/experiments/answer-score";
import { LOCOMO_SKILL, type LocomoConversation, type LocomoItem, locomoBankId } from "@/lib/experiments/locomo";
import { createOfflineModel } from "@/lib/llm";
import { runReflect } from "@/lib/reflect";
import type { RunEvent } from "@/lib/reflect/events";
import { isNegativeAnswer } from "@/lib/reflect/probe";
import { termStatsPort } from "@/lib/server/runtime/model";
import { DEFAULT_LOCOMO_PATH, importLocomo, readLocomo } from "./locomo-data";
import { type BenchRow, median, openBenchDb, percentile, row } from "./report";

const SECTION = "locomo";
const KS = [5, 10, 25] as const;
const CATEGORIES = ["1", "2", "3", "4", "5"] as const;
const pct = (x: number) => Math.round(x * 1000) / 10;

interface Asked {
  conv: LocomoConversation;
  item: LocomoItem;
  bankId: string;
}

function questionsOf(conversations: LocomoConversation[], prefix?: string): Asked[] {
  return conversations.flatMap((conv) =>
    conv.items.map((item) => ({ conv, item, bankId: locomoBankId(conv.sampleId, prefix) })),
  );
}

const evidenceShare = (evidence: readonly string[], found: Iterable<string>) => {
  const set = new Set(found);
  return evidence.length === 0 ? 0 : evidence.filter((e) => set.has(e)).length / evidence.length;
};

/** Mean of `value` per category and overall, over questions `where` holds. */
function byCategory<T extends { item: LocomoItem }>(
  rows: T[],
  value: (r: T) => number,
  where: (r: T) => boolean = () => true,
) {
  const out: Record<string, { n: number; mean: number }> = {};
  for (const key of [...CATEGORIES, "all"]) {
    const picked = rows.filter((r) => where(r) && (key === "all" || String(r.item.category) === key));
    out[key] = {
      n: picked.length,
      mean: picked.length === 0 ? Number.NaN : picked.reduce((s, r) => s + value(r), 0) / picked.length,
    };
  }
  return out;
}

// ---------- retrieval ----------

async function recallAt(db: Db, asked: Asked[], tuning: ConversationTuning) {
  const out: { item: LocomoItem; shares: number[]; ms: number }[] = [];
  for (const a of asked) {
    if (a.item.evidence.length === 0) continue;
    const started = performance.now();
    let ids: string[] = [];
    try {
      const hits = await searchFacts(
        db,
        { bankId: a.bankId, query: a.item.question, limit: 25, tags: [], scopes: ["personal"] },
        tuning,
      );
      ids = hits.map((h) => h.id);
    } catch {
      // A question with no searchable word finds nothing; it counts as a miss.
    }
    const ms = performance.now() - started;
    out.push({ item: a.item, shares: KS.map((k) => evidenceShare(a.item.evidence, ids.slice(0, k))), ms });
  }
  return out;
}

const OFF: Record<string, Partial<ConversationTuning>> = {
  "neighbouring turns": { neighbour: 0 },
  "session locality": { session: 0 },
  "speaker awareness": { speaker: 1 },
  "temporal anchors": { date: 1, month: 1 },
  "observation sources": { observation: 0 },
};

// ---------- reflect ----------

interface ReflectRow {
  item: LocomoItem;
  status: string;
  /** The answer says the memory does not hold it (or cites nothing): what the probe checks. */
  negative: boolean;
  flagged: boolean;
  firstLine: string;
  answer: string;
  score: number;
  f1Whole: number;
  contained: boolean;
  retrieved: number;
  cited: number;
  llmCalls: number;
  ms: number;
}

/** LoCoMo's per-question score of a prediction (its evaluation.py). */
export function locomoScore(item: LocomoItem, prediction: string): number {
  if (item.category === 5) return /no information available|not mentioned/i.test(prediction) ? 1 : 0;
  const gold = item.answer ?? "";
  if (item.category === 1) return multiPartF1(prediction, gold);
  return tokenF1(prediction, item.category === 3 ? (gold.split(";")[0] ?? "").trim() : gold);
}

async function reflectAll(db: Db, asked: Asked[]): Promise<ReflectRow[]> {
  const rows: ReflectRow[] = [];
  const { id, name, version, mission, disposition, retrieval, budget, anchorEvery, outputFormat, answerFormat } =
    LOCOMO_SKILL;
  const skill = { id, name, version, mission, disposition, retrieval, budget, anchorEvery, outputFormat, answerFormat };
  let n = 0;
  for (const a of asked) {
    const events: RunEvent[] = [];
    const started = performance.now();
    const result = await runReflect(
      {
        memory: createMemoryStore(db),
        model: createOfflineModel({ termStats: termStatsPort(db, a.bankId) }),
        sink: { append: async (e) => void events.push(e) },
        clock: { now: () => performance.now() },
        ids: { next: (prefix) => `${prefix}_${++n}` },
      },
      {
        runId: `locomo_${n++}`,
        bankId: a.bankId,
        question: a.item.question,
        skill,
        budget: skill.budget,
        mode: "synthesize",
        scope: "personal",
        anchorEvery: skill.anchorEvery,
      },
    );
    const ms = performance.now() - started;
    const retrievedIds = events.flatMap((e) => (e.type === "tool.result" ? e.payload.ids.raw_facts : []));
    const firstLine = result.answer.split("\n")[0] ?? "";
    const cited =
      result.citations.memory_ids.length +
      result.citations.observation_ids.length +
      result.citations.mental_model_ids.length;
    rows.push({
      item: a.item,
      status: result.status,
      negative: isNegativeAnswer(result.status, result.answer, new Set(result.flags), cited),
      flagged: result.flags.includes("missed_evidence"),
      firstLine,
      answer: result.answer,
      score: locomoScore(a.item, firstLine),
      f1Whole:
        a.item.category === 5
          ? locomoScore(a.item, result.answer)
          : locomoScore(a.item, result.answer.replace(/\[[^\]\n]+\]/g, " ")),
      contained: a.item.answer !== null && containsAnswer(result.answer, a.item.answer),
      retrieved: evidenceShare(a.item.evidence, retrievedIds),
      cited: evidenceShare(a.item.evidence, result.citations.memory_ids),
      llmCalls: result.llmCalls,
      ms,
    });
  }
  return rows;
}

function reflectTable(log: (line: string) => void, title: string, rows: ReflectRow[]) {
  const withEvidence = (r: ReflectRow) => r.item.evidence.length > 0;
  const cols = {
    score: byCategory(rows, (r) => r.score),
    whole: byCategory(rows, (r) => r.f1Whole),
    contained: byCategory(
      rows,
      (r) => (r.contained ? 1 : 0),
      (r) => r.item.answer !== null,
    ),
    retrieved: byCategory(rows, (r) => r.retrieved, withEvidence),
    cited: byCategory(rows, (r) => r.cited, withEvidence),
    calls: byCategory(rows, (r) => r.llmCalls),
  };
  log(`  ${title}`);
  log("  cat  n     score  F1-whole  contained  ev.retrieved  ev.cited  calls  p50 ms  p95 ms");
  for (const key of [...CATEGORIES, "all"]) {
    const ms = rows.filter((r) => key === "all" || String(r.item.category) === key).map((r) => r.ms);
    log(
      `  ${key.padEnd(4)} ${String(cols.score[key]!.n).padEnd(5)} ${pct(cols.score[key]!.mean).toFixed(1).padStart(5)}  ${pct(cols.whole[key]!.mean).toFixed(1).padStart(8)}  ${pct(cols.contained[key]!.mean).toFixed(1).padStart(9)}  ${pct(cols.retrieved[key]!.mean).toFixed(1).padStart(12)}  ${pct(cols.cited[key]!.mean).toFixed(1).padStart(8)}  ${cols.calls[key]!.mean.toFixed(2).padStart(5)}  ${median(ms).toFixed(0).padStart(6)}  ${percentile(ms, 95).toFixed(0).padStart(6)}`,
    );
  }
  return cols;
}

function parseDataFlag(args: readonly string[]): string {
  const at = args.indexOf("--data");
  return at >= 0 && args[at + 1] ? args[at + 1]! : DEFAULT_LOCOMO_PATH;
}

export async function benchLocomo(log: (line: string) => void, args: readonly string[] = []): Promise<BenchRow[]> {
  const path = parseDataFlag(args);
  const conversations = readLocomo(path);
  if (!conversations) {
    log(`  skipped: no LoCoMo file at ${path} (pass --data <locomo10.json or a half of it>)`);
    return [];
  }
  const repairs = conversations.flatMap((c) =>
    c.repairs.map((r) => `${c.sampleId} ${r.path}: "${r.value}" ${r.action} (${r.detail})`),
  );
  log(
    `  ${path}: ${conversations.length} conversations, ${conversations.reduce((n, c) => n + c.items.length, 0)} questions; ${repairs.length} data repairs`,
  );
  for (const r of repairs) log(`    repair: ${r}`);
  const { db, cleanup } = await openBenchDb(SECTION);
  try {
    await importLocomo(db, conversations);
    const asked = questionsOf(conversations);
    const rows: BenchRow[] = [];

    // Retrieval with every technique, then each switched off.
    const full = await recallAt(db, asked, CONVERSATION_TUNING);
    const at = (list: typeof full, k: number) =>
      byCategory(list, (r) => r.shares[KS.indexOf(k as (typeof KS)[number])]!);
    log("  raw-fact recall, question as the query: share of evidence turns in the top k");
    log("  cat  n     @5     @10    @25");
    for (const key of [...CATEGORIES, "all"]) {
      const cells = KS.map((k) => pct(at(full, k)[key]!.mean).toFixed(1).padStart(5));
      log(`  ${key.padEnd(4)} ${String(at(full, 5)[key]!.n).padEnd(5)} ${cells.join("  ")}`);
    }
    const all5 = at(full, 5).all!.mean;
    const all10 = at(full, 10).all!.mean;
    const p50 = median(full.map((r) => r.ms));
    rows.push(
      row(SECTION, "raw-fact recall@5 (evidence share, all questions)", pct(all5), "%", {
        target: "≥ 75 %",
        met: all5 >= 0.75,
      }),
      row(SECTION, "raw-fact recall@10", pct(all10), "%", { target: "≥ 85 %", met: all10 >= 0.85 }),
      row(SECTION, "raw-fact recall@25", pct(at(full, 25).all!.mean), "%"),
      row(SECTION, "recall p50 on these banks", Math.round(p50 * 100) / 100, "ms", {
        target: "≤ 10 ms",
        met: p50 <= 10,
      }),
    );
    log("  what each technique adds (recall@5 / @10 with it, and without it):");
    const bm25Only = await recallAt(db, asked, {
      ...CONVERSATION_TUNING,
      neighbour: 0,
      session: 0,
      speaker: 1,
      date: 1,
      month: 1,
      observation: 0,
    });
    log(`    BM25 alone (every technique off): ${pct(at(bm25Only, 5).all!.mean)} / ${pct(at(bm25Only, 10).all!.mean)}`);
    for (const [name, off] of Object.entries(OFF)) {
      const without = await recallAt(db, asked, { ...CONVERSATION_TUNING, ...off });
      const d5 = all5 - at(without, 5).all!.mean;
      const d10 = all10 - at(without, 10).all!.mean;
      log(
        `    ${name}: +${pct(d5).toFixed(1)} / +${pct(d10).toFixed(1)} points (without it: ${pct(at(without, 5).all!.mean)} / ${pct(at(without, 10).all!.mean)})`,
      );
      rows.push(row(SECTION, `recall@5 gain of ${name}`, pct(d5), "points"));
    }
    await importLocomo(db, conversations, { prefix: "nocap-", captions: false });
    const noCaptions = await recallAt(db, questionsOf(conversations, "nocap-"), CONVERSATION_TUNING);
    log(
      `    photo captions in the turn's text: +${pct(all5 - at(noCaptions, 5).all!.mean).toFixed(1)} / +${pct(all10 - at(noCaptions, 10).all!.mean).toFixed(1)} points`,
    );

    // Offline reflect, without and then with fresh mental models.
    const lastRows = await reflectAll(db, asked);
    const plain = reflectTable(log, "offline reflect (no mental models)", lastRows);
    await importLocomo(db, conversations, { prefix: "fresh-", summaries: "fresh" });
    const freshRows = await reflectAll(db, questionsOf(conversations, "fresh-"));
    const fresh = reflectTable(log, "offline reflect with the session summaries as fresh mental models", freshRows);
    const s = plain.score.all!.mean;
    const plainRows = lastRows;
    const share = (rs: ReflectRow[]) => (rs.length === 0 ? Number.NaN : rs.filter((r) => r.flagged).length / rs.length);
    const missed = plainRows.filter((r) => r.negative && r.item.category !== 5 && r.item.evidence.length > 0);
    const positive = plainRows.filter((r) => !r.negative);
    const declined = plainRows.filter((r) => r.negative && r.item.category === 5);
    log(
      `  probe: flags ${pct(share(missed))} % of ${missed.length} negative answers to answerable questions, ${pct(share(positive))} % of ${positive.length} positive answers, ${pct(share(declined))} % of ${declined.length} adversarial declines (a decline with the other speaker's evidence read)`,
    );
    rows.push(
      row(SECTION, "offline reflect: LoCoMo score (F1 of the short answer, cat. 5 declined)", pct(s), "", {
        target: "≥ 25",
        met: s >= 0.25,
      }),
      row(SECTION, "offline reflect: gold answer contained", pct(plain.contained.all!.mean), "%", {
        target: "≥ 45 %",
        met: plain.contained.all!.mean >= 0.45,
      }),
      row(SECTION, "offline reflect: evidence retrieved by the run", pct(plain.retrieved.all!.mean), "%", {
        target: "≥ 92 %",
        met: plain.retrieved.all!.mean >= 0.92,
      }),
      row(SECTION, "offline reflect: evidence cited", pct(plain.cited.all!.mean), "%", {
        target: "≥ 75 %",
        met: plain.cited.all!.mean >= 0.75,
      }),
      row(SECTION, "offline reflect: category 5 declined", pct(plain.score["5"]!.mean), "%", {
        target: "≥ 50 %",
        met: plain.score["5"]!.mean >= 0.5,
      }),
      row(SECTION, "probe: negative answers to answerable questions flagged missed_evidence", pct(share(missed)), "%", {
        target: "≥ 50 %",
        met: share(missed) >= 0.5,
      }),
      row(SECTION, "probe: positive answers flagged (false alarms)", pct(share(positive)), "%", {
        target: "≤ 10 %",
        met: share(positive) <= 0.1,
      }),
      row(SECTION, "offline reflect: LLM calls per run", Math.round(plain.calls.all!.mean * 100) / 100, "", {
        target: "≤ 4.5",
        met: plain.calls.all!.mean <= 4.5,
      }),
      row(
        SECTION,
        "evidence retrieved with fresh mental models, points below the run without",
        pct(plain.retrieved.all!.mean - fresh.retrieved.all!.mean),
        "points",
        { target: "≤ 5", met: plain.retrieved.all!.mean - fresh.retrieved.all!.mean <= 0.05 },
      ),
    );
    return rows;
  } finally {
    cleanup();
  }
}
