/**
 * §1 Retrieval per tier at 1k, 10k and 100k facts, and §2 batch staleness on the 100k bank.
 * Each tier is timed twice: as the engine sees it (the memory port: bank lookup, scope check,
 * search, freshness or staleness) and as its bare SQL search (db/queries/search.ts). The floor is a bare
 * FTS5 `MATCH … ORDER BY bm25` on the same table with the same MATCH expression, run interleaved
 * with the tier query so both see the same cache state.
 */
import type { Db } from "@/db/client";
import { buildFtsMatches, buildFtsQuery } from "@/db/queries/fts-query";
import { createMemoryStore } from "@/db/queries/memory-store";
import { listMentalModels } from "@/db/queries/mental-models";
import { searchFacts, searchMentalModelIds, searchObservations, type TierSearch, tagsAllOf } from "@/db/queries/search";
import { ftsTable } from "@/db/queries/search-index";
import type { TierQuery } from "@/lib/reflect/ports";
import { BENCH_BANK, createBenchBank, insertFacts, insertMentalModels, question, TAGS } from "./corpus";
import { atMost, type BenchRow, median, openBenchDb, percentile, prng, row, timed } from "./report";

const SIZES = [1_000, 10_000, 100_000];
const QUERIES_PER_TIER = 200;
const WARMUP = 20;
const STALENESS_REPEATS = 30;

type TierName = "mental models" | "observations" | "recall";
const TIERS: { name: TierName; fts: string; limit: number }[] = [
  { name: "mental models", fts: ftsTable("mental_models", BENCH_BANK), limit: 5 },
  { name: "observations", fts: ftsTable("observations", BENCH_BANK), limit: 10 },
  { name: "recall", fts: ftsTable("facts", BENCH_BANK), limit: 20 },
];

/** A run scoped to team:platform reads personal + team:platform memories (the bank permits platform). */
const READABLE = ["personal", "team:platform"] as const;

function queries(seed: number, n: number): TierQuery[] {
  const r = prng(seed);
  return Array.from({ length: n }, () => ({
    bankId: BENCH_BANK,
    query: question(r),
    limit: 0,
    // A quarter of the searches carry a skill's tag filter (e.g. decisions → "decision").
    tags: r.next() < 0.25 ? [r.pick(TAGS)] : [],
    scope: "team:platform" as const,
  }));
}

async function bareFts(db: Db, table: string, query: string, limit: number): Promise<number> {
  const match = buildFtsQuery(query);
  if (!match) return 0;
  const res = await db.$client.execute({
    sql: `SELECT rowid, * FROM ${table} WHERE ${table} MATCH ? ORDER BY bm25(${table}) LIMIT ?`,
    args: [match, limit],
  });
  return res.rows.length;
}

function tierQuery(db: Db, tier: TierName, q: TierSearch): Promise<unknown> {
  if (tier === "recall") return searchFacts(db, q);
  if (tier === "observations") return searchObservations(db, q);
  return searchMentalModelIds(db, q);
}

export async function benchRetrieval(log: (line: string) => void): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const { db, cleanup } = await openBenchDb("retrieval");
  try {
    const r = prng(42);
    await createBenchBank(db);
    await insertMentalModels(db, r);
    const store = createMemoryStore(db);
    const p50BySize = new Map<string, number>();
    const staleness: BenchRow[] = [];
    let have = 0;
    for (const size of SIZES) {
      const load = await timed(() => insertFacts(db, r, have, size));
      log(`  inserted ${(size - have).toLocaleString("en-US")} facts in ${(load.ms / 1000).toFixed(1)} s`);
      rows.push(
        row(
          "1 retrieval",
          `import ${size.toLocaleString("en-US")} facts`,
          Math.round(((size - have) / load.ms) * 1000),
          "facts/s",
        ),
      );
      have = size;
      await db.$client.execute("PRAGMA optimize");
      const label = size >= 1000 ? `${size / 1000}k` : String(size);
      for (const tier of TIERS) {
        const port = (q: TierQuery): Promise<unknown> =>
          tier.name === "recall"
            ? store.recall(q)
            : tier.name === "observations"
              ? store.searchObservations(q)
              : store.searchMentalModels(q);
        const qs = queries(size + tier.limit, WARMUP + QUERIES_PER_TIER).map((q) => ({ ...q, limit: tier.limit }));
        const portMs: number[] = [];
        const sqlMs: number[] = [];
        const bareMs: number[] = [];
        for (const [i, q] of qs.entries()) {
          const search: TierSearch = { ...q, scopes: [...READABLE] };
          // Alternate the order so neither side always runs on the warmer cache.
          const first = i % 2 === 0;
          const a = first ? await timed(() => tierQuery(db, tier.name, search)) : null;
          const bare = await timed(() => bareFts(db, tier.fts, q.query, tier.limit));
          const b = first ? a! : await timed(() => tierQuery(db, tier.name, search));
          const p = await timed(() => port(q));
          if (i < WARMUP) continue;
          sqlMs.push(b.ms);
          bareMs.push(bare.ms);
          portMs.push(p.ms);
        }
        const section = "1 retrieval";
        const name = `${tier.name} @${label}`;
        const p50 = median(portMs);
        p50BySize.set(`${tier.name}@${size}`, p50);
        const recallGoal = tier.name === "recall" && size === 100_000 ? atMost(p50, 8, "ms") : undefined;
        const ratio = median(sqlMs) / median(bareMs);
        rows.push(
          row(section, `${name} search p50`, p50, "ms", recallGoal, "memory port"),
          row(section, `${name} search p95`, percentile(portMs, 95), "ms", undefined, "memory port"),
          row(section, `${name} tier query p50`, median(sqlMs), "ms"),
          row(section, `${name} bare FTS5 bm25 p50`, median(bareMs), "ms"),
          row(section, `${name} tier query / bare`, ratio, "×", atMost(ratio, 1.5, "×")),
        );
        log(`  ${name}: port p50 ${p50.toFixed(2)} ms, query/bare ${ratio.toFixed(2)}×`);
        if (tier.name === "recall") rows.push(...(await rankingAgainstToday(db, qs.slice(WARMUP), label, log)));
      }
      if (size === 100_000) staleness.push(...(await benchStaleness(db)));
    }
    for (const tier of TIERS) {
      const small = p50BySize.get(`${tier.name}@1000`)!;
      const large = p50BySize.get(`${tier.name}@100000`)!;
      rows.push(row("1 retrieval", `${tier.name} p50 growth 1k → 100k facts`, large / small, "×"));
    }
    rows.push(...staleness);
  } finally {
    cleanup();
  }
  return rows;
}

/**
 * What the ranking gave up. (a) Stricter matches first vs ranking every memory with any word, on
 * the same index: overlap@10. (b) Against the previous release (text only, every word OR-ed,
 * recomputed exactly on a text-only FTS5 table): overlap@10, and tie-aware — the generated bank
 * has many equal scores, so also counted as kept is a memory the previous ranking scores at least
 * as well as its own 10th. (c) Which match answered.
 */
async function rankingAgainstToday(
  db: Db,
  qs: TierQuery[],
  label: string,
  log: (line: string) => void,
): Promise<BenchRow[]> {
  await db.$client.batch(
    [
      "DROP TABLE IF EXISTS bench_today_fts",
      "CREATE VIRTUAL TABLE bench_today_fts USING fts5(text, content='facts', content_rowid='pk', tokenize='porter unicode61')",
      "INSERT INTO bench_today_fts(bench_today_fts) VALUES ('rebuild')",
    ],
    "write",
  );
  const fts = ftsTable("facts", BENCH_BANK);
  const strictVsOr: number[] = [];
  const vsToday: number[] = [];
  const vsTodayTies: number[] = [];
  const answeredBy = [0, 0, 0];
  const share = (expected: string[], got: Set<string>) => expected.filter((id) => got.has(id)).length / expected.length;
  for (const q of qs) {
    const matches = buildFtsMatches(q.query);
    if (!matches) continue;
    const any = matches.at(-1)!;
    const filter = `m.bank_id = ? AND m.scope IN (${READABLE.map(() => "?").join(", ")})${q.tags.length ? ` AND ${tagsAllOf("m.tags")}` : ""}`;
    const args = [BENCH_BANK, ...READABLE, ...(q.tags.length ? [JSON.stringify(q.tags)] : [])];
    const ranked = async (index: string, weights: string, match: string, ids?: string[]) =>
      (
        await db.$client.execute({
          sql: `SELECT m.id, bm25(${index}${weights}) AS score FROM ${index} JOIN facts m ON m.pk = ${index}.rowid
                WHERE ${index} MATCH ? AND ${filter}${ids ? ` AND m.id IN (${ids.map(() => "?").join(", ")})` : ""}
                ORDER BY 2, m.id LIMIT ?`,
          args: [match, ...args, ...(ids ?? []), ids ? ids.length : 10],
        })
      ).rows.map((r) => ({ id: String(r.id), score: Number(r.score) }));
    const now = (await searchFacts(db, { ...q, scopes: [...READABLE] })).slice(0, 10).map((f) => f.id);
    const nowSet = new Set(now);
    const or = await ranked(fts, ", 1.0, 0.5", any);
    if (or.length > 0)
      strictVsOr.push(
        share(
          or.map((r) => r.id),
          nowSet,
        ),
      );
    const today = await ranked("bench_today_fts", "", any);
    if (today.length > 0 && now.length > 0) {
      vsToday.push(
        share(
          today.map((r) => r.id),
          nowSet,
        ),
      );
      const tenth = today.at(-1)!.score;
      const asGood = (await ranked("bench_today_fts", "", any, now)).filter((r) => r.score <= tenth).length;
      vsTodayTies.push(Math.min(1, asGood / today.length));
    }
    for (const [i, match] of matches.entries()) {
      const n = await db.$client.execute({
        sql: `SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${fts} JOIN facts m ON m.pk = ${fts}.rowid
              WHERE ${fts} MATCH ? AND ${filter} LIMIT ?)`,
        args: [match, ...args, q.limit],
      });
      if (Number(n.rows[0]?.n) >= q.limit || i === matches.length - 1) {
        answeredBy[i === matches.length - 1 ? 2 : i]! += 1;
        break;
      }
    }
  }
  await db.$client.execute("DROP TABLE bench_today_fts");
  const pct = (v: number[]) => (v.reduce((a, b) => a + b, 0) / v.length) * 100;
  const section = "1 retrieval";
  const name = `recall @${label}`;
  log(
    `  ${name}: top 10 kept vs OR ${pct(strictVsOr).toFixed(0)} %, vs previous release ${pct(vsToday).toFixed(0)} % (tie-aware ${pct(vsTodayTies).toFixed(0)} %); answered by AND / all but one / OR: ${answeredBy.join(" / ")}`,
  );
  return [
    row(section, `${name} overlap@10, stricter matches first vs OR (same index)`, pct(strictVsOr), "%"),
    row(section, `${name} overlap@10 vs the previous release's ranking (text only, OR)`, pct(vsToday), "%"),
    row(section, `${name} … tie-aware (a memory scored as well as its 10th counts)`, pct(vsTodayTies), "%"),
    row(
      section,
      `${name} searches answered by AND / all words but one / OR`,
      answeredBy[0]!,
      "",
      undefined,
      `${answeredBy[1]} / ${answeredBy[2]} of ${qs.length}`,
    ),
  ];
}

/** §2: staleness of every mental model in one listMentalModels call (one SQL statement). */
async function benchStaleness(db: Db): Promise<BenchRow[]> {
  const samples: number[] = [];
  let stale = 0;
  let models = 0;
  for (let i = 0; i < STALENESS_REPEATS + 3; i++) {
    const t = await timed(() => listMentalModels(db, BENCH_BANK));
    if (i < 3) continue;
    samples.push(t.ms);
    models = t.value.length;
    stale = t.value.filter((m) => m.isStale).length;
  }
  const memories = Number(
    (await db.$client.execute("SELECT (SELECT COUNT(*) FROM facts) + (SELECT COUNT(*) FROM observations) AS n")).rows[0]
      ?.n,
  );
  const p50 = median(samples);
  return [
    row(
      "2 staleness",
      `batch staleness, ${models} models over ${memories.toLocaleString("en-US")} memories p50`,
      p50,
      "ms",
      atMost(p50, 20, "ms"),
      `${stale} stale`,
    ),
    row("2 staleness", "batch staleness p95", percentile(samples, 95), "ms"),
  ];
}
