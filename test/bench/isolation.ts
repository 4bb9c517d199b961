/**
 * §7 Bank isolation: the demo bank (185 facts) searched through the memory port in a database that
 * holds only it, and in one where four other banks hold 100k facts (10k observations, 200 mental
 * models) written in the same words (Atlas, SSO, pricing…). Both databases are searched with the
 * same questions, interleaved, so the ratio compares like with like on a noisy machine.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Db } from "@/db/client";
import { createMemoryStore } from "@/db/queries/memory-store";
import { listMentalModels } from "@/db/queries/mental-models";
import type { MemoryPort, TierQuery } from "@/lib/reflect/ports";
import { importBundle } from "@/lib/server/services/bundle-io";
import { createBenchBank, insertFacts, insertMentalModels } from "./corpus";
import { atMost, type BenchRow, median, openBenchDb, prng, row, timed } from "./report";

const OTHER_BANKS = ["north", "east", "south", "west"];
const FACTS_PER_OTHER_BANK = 25_000;
const ROUNDS = 8;
const MAX_RATIO = 1.3;

/** Questions a user of the demo bank asks (the words also fill the other banks). */
export const DEMO_QUESTIONS = [
  "What did we decide about the launch date?",
  "What is blocking the SSO rollout?",
  "What pricing tiers did we decide on?",
  "How did the Brightwell pilot go?",
  "Where is the ClickHouse pipeline migration?",
  "Who owns SAML SSO?",
  "What came out of the incident review?",
  "Why are tests flaky?",
  "Who are we hiring for the backend role?",
  "What did Dana approve?",
  "When is the Atlas launch?",
  "What are the open action items?",
  "What did the pen test find?",
  "What is the Enterprise price?",
  "Who is on the Atlas team?",
  "What happened at the sprint retro?",
];

async function demoDb(name: string): Promise<{ db: Db; cleanup: () => void }> {
  const opened = await openBenchDb(name);
  await importBundle(opened.db, JSON.parse(readFileSync(resolve(process.cwd(), "db/demo/demo-bank.json"), "utf8")));
  return opened;
}

type Probe = { name: string; limit: number; run: (memory: MemoryPort, db: Db, q: TierQuery) => Promise<unknown> };

const PROBES: Probe[] = [
  { name: "recall", limit: 20, run: (m, _db, q) => m.recall(q) },
  { name: "observations", limit: 10, run: (m, _db, q) => m.searchObservations(q) },
  { name: "mental models", limit: 5, run: (m, _db, q) => m.searchMentalModels(q) },
  { name: "staleness check (all 9 models)", limit: 0, run: (_m, db) => listMentalModels(db, "demo") },
];

export async function benchIsolation(log: (line: string) => void): Promise<BenchRow[]> {
  const alone = await demoDb("isolation-alone");
  const shared = await openBenchDb("isolation-shared");
  try {
    const r = prng(7);
    const load = await timed(async () => {
      for (const [i, bankId] of OTHER_BANKS.entries()) {
        // The demo bank lands between the others, as a bank added to a team's database later would.
        if (i === 2)
          await importBundle(
            shared.db,
            JSON.parse(readFileSync(resolve(process.cwd(), "db/demo/demo-bank.json"), "utf8")),
          );
        await createBenchBank(shared.db, bankId);
        await insertFacts(shared.db, r, 0, FACTS_PER_OTHER_BANK, bankId);
        await insertMentalModels(shared.db, r, 50, bankId);
      }
    });
    log(
      `  other banks: ${OTHER_BANKS.length} × ${FACTS_PER_OTHER_BANK.toLocaleString("en-US")} facts in ${(load.ms / 1000).toFixed(1)} s`,
    );
    const memories = { alone: createMemoryStore(alone.db), shared: createMemoryStore(shared.db) };
    const rows: BenchRow[] = [];
    for (const probe of PROBES) {
      const samples = { alone: [] as number[], shared: [] as number[] };
      for (let round = 0; round < ROUNDS + 1; round++) {
        for (const [i, question] of DEMO_QUESTIONS.entries()) {
          const q: TierQuery = { bankId: "demo", query: question, limit: probe.limit, tags: [], scope: "personal" };
          // Alternate which database goes first so neither always runs on the warmer CPU cache.
          const order = (round + i) % 2 === 0 ? (["alone", "shared"] as const) : (["shared", "alone"] as const);
          for (const which of order) {
            const db = which === "alone" ? alone.db : shared.db;
            const t = await timed(() => probe.run(memories[which], db, q));
            if (round > 0) samples[which].push(t.ms);
          }
        }
      }
      const a = median(samples.alone);
      const s = median(samples.shared);
      const ratio = s / a;
      log(
        `  ${probe.name}: alone ${a.toFixed(2)} ms, with 100k facts in other banks ${s.toFixed(2)} ms (${ratio.toFixed(2)}×)`,
      );
      const section = "7 isolation";
      rows.push(
        row(section, `${probe.name} p50, demo bank alone`, a, "ms"),
        row(section, `${probe.name} p50, demo bank + 100k facts in other banks`, s, "ms"),
        row(section, `${probe.name}: with other banks ÷ alone`, ratio, "×", atMost(ratio, MAX_RATIO, "×")),
      );
    }
    return rows;
  } finally {
    alone.cleanup();
    shared.cleanup();
  }
}
