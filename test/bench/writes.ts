/**
 * Write cost against the number of banks: a 100-fact retain (db/queries/retain.ts, the path of the API, MCP
 * and CLI) and a 1k-fact bundle import into a database holding 1, 50 or 300 banks. Search index
 * upkeep must not grow with the banks (db/queries/search-index.ts): 300 banks ≤ 1.5× one bank.
 */

import { insertFacts as retain } from "@/db/queries/retain";
import type { BundleInput } from "@/lib/contracts/bundle";
import { importBundle } from "@/lib/server/services/bundle-io";
import { createBenchBank, insertFacts } from "./corpus";
import { type BenchRow, median, openBenchDb, prng, row, timed } from "./report";

const BANK_COUNTS = [1, 50, 300];
const FACTS_PER_BANK = 100;
const ROUNDS = 7;
const MAX_RATIO = 1.5;

const facts = (n: number, round: number) =>
  Array.from({ length: n }, (_, i) => ({
    text: `Round ${round} note ${i}: the billing rollout for region ${i % 17} moved to week ${(i * 7) % 52}.`,
    kind: "world" as const,
    tags: i % 3 === 0 ? ["billing"] : [],
    scope: "personal" as const,
  }));

function bundle(id: string, n: number): BundleInput {
  return {
    version: 1,
    bank: { id, name: id, permittedTeams: [] },
    facts: facts(n, 0).map((f, i) => ({ ...f, id: `f${i}`, recordedAt: "2026-01-01T00:00:00Z" })),
    observations: [],
    mentalModels: [],
    skills: [],
  };
}

export async function benchWrites(log: (line: string) => void): Promise<BenchRow[]> {
  const results: { banks: number; retain: number; import: number }[] = [];
  for (const banks of BANK_COUNTS) {
    const opened = await openBenchDb(`writes-${banks}`);
    try {
      const r = prng(11);
      for (let b = 0; b < banks; b++) {
        await createBenchBank(opened.db, `bank-${b}`);
        await insertFacts(opened.db, r, 0, FACTS_PER_BANK, `bank-${b}`);
      }
      const retainMs: number[] = [];
      const importMs: number[] = [];
      // Retains first: an import creates the new bank's index (a schema change), after which each
      // connection reparses the schema once, a cost of creating banks rather than of writing.
      for (let round = 0; round < ROUNDS; round++)
        retainMs.push((await timed(() => retain(opened.db, "bank-0", facts(100, round + 1)))).ms);
      for (let round = 0; round < ROUNDS; round++)
        importMs.push((await timed(() => importBundle(opened.db, bundle(`import-${round}`, 1_000)))).ms);
      const result = { banks, retain: median(retainMs), import: median(importMs) };
      results.push(result);
      log(
        `  ${banks} bank(s): 100-fact retain p50 ${result.retain.toFixed(1)} ms, 1k-fact import p50 ${result.import.toFixed(1)} ms`,
      );
    } finally {
      opened.cleanup();
    }
  }
  const one = results[0]!;
  const most = results.at(-1)!;
  const rows: BenchRow[] = [];
  for (const res of results) {
    rows.push(row("writes", `100-fact retain p50, ${res.banks} bank(s)`, res.retain, "ms"));
    rows.push(row("writes", `1k-fact import p50, ${res.banks} bank(s)`, res.import, "ms"));
  }
  for (const [name, key] of [
    ["100-fact retain", "retain"],
    ["1k-fact import", "import"],
  ] as const) {
    const ratio = most[key] / one[key];
    rows.push(
      row("writes", `${name}: ${most.banks} banks ÷ 1 bank`, ratio, "×", {
        target: `≤ ${MAX_RATIO}×`,
        met: ratio <= MAX_RATIO,
      }),
    );
  }
  return rows;
}
