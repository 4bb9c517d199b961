/**
 * Write cost against the number of banks: a 100-fact retain (db/queries/retain.ts, the path of the API, MCP
 * and CLI) and a 1k-fact bundle import into a database holding 1, 50 or 300 banks. Search index
 * upkeep must not grow with the banks (db/queries/search-index.ts): 300 banks ≤ 1.5× one bank.
 *
 * An import into a new bank creates its indexes, a schema change after which every connection
 * re-reads the whole schema (docs/performance.md#import-into-a-new-bank): each import here pays one
 * such re-read, on the reader thread that answers its first read, as a server's reader pays it on
 * its next search. The three databases are measured round by round, interleaved, so a busy machine
 * weighs on all of them alike, after one unmeasured warm-up write each.
 */

import { createClient } from "@libsql/client/sqlite3";
import { insertFacts as retain } from "@/db/queries/retain";
import type { BundleInput } from "@/lib/contracts/bundle";
import { importBundle } from "@/lib/server/services/bundle-io";
import { createBenchBank, insertFacts } from "./corpus";
import { type BenchRow, median, openBenchDb, prng, row, timed } from "./report";

const BANK_COUNTS = [1, 50, 300];
const FACTS_PER_BANK = 100;
const ROUNDS = 15;
const MAX_RATIO = 1.5;

const facts = (n: number, round: number) =>
  Array.from({ length: n }, (_, i) => ({
    text: `Round ${round} note ${i}: the billing rollout for region ${i % 17} moved to week ${(i * 7) % 52}.`,
    kind: "world" as const,
    tags: i % 3 === 0 ? ["billing"] : [],
    scope: "personal" as const,
  }));

/** A 1k-fact bundle; `allTiers` adds 100 observations and 5 mental models (an index for every tier). */
function bundle(id: string, n: number, allTiers = false): BundleInput {
  return {
    version: 1,
    bank: { id, name: id, permittedTeams: [] },
    facts: facts(n, 0).map((f, i) => ({ ...f, id: `f${i}`, recordedAt: "2026-01-01T00:00:00Z" })),
    observations: allTiers
      ? Array.from({ length: n / 10 }, (_, i) => ({
          id: `o${i}`,
          text: `Region ${i % 17} billing moves in week ${(i * 7) % 52}.`,
          tags: ["billing"],
          scope: "personal" as const,
          sourceFactIds: [`f${i * 10}`],
          updatedAt: "2026-01-02T00:00:00Z",
        }))
      : [],
    mentalModels: allTiers
      ? Array.from({ length: 5 }, (_, i) => ({
          id: `mm${i}`,
          name: `Billing region ${i}`,
          sourceQuery: `where is billing in region ${i}?`,
          content: `Region ${i} moves in week ${i * 7}.`,
          tags: ["billing"],
          refreshedAt: "2026-01-03T00:00:00Z",
          version: 1,
          history: [],
        }))
      : [],
    skills: [],
  };
}

/** Rows of the file's schema (sqlite_master). */
async function schemaRows(db: Awaited<ReturnType<typeof openBenchDb>>["db"]): Promise<number> {
  const { rows } = await db.$client.execute("SELECT COUNT(*) AS n FROM sqlite_master");
  return Number(rows[0]!.n);
}

/** A new connection's first statement: it reads the whole schema. */
async function schemaReadMs(path: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const client = createClient({ url: `file:${path}` });
    times.push((await timed(() => client.execute("SELECT 1 FROM banks LIMIT 1"))).ms);
    client.close();
  }
  return median(times);
}

export async function benchWrites(log: (line: string) => void): Promise<BenchRow[]> {
  const dbs: {
    banks: number;
    opened: Awaited<ReturnType<typeof openBenchDb>>;
    retain: number[];
    import: number[];
    full: number[];
  }[] = [];
  const results: {
    banks: number;
    retain: number;
    import: number;
    full: number;
    schema: number;
    newBank: number;
    read: number;
  }[] = [];
  try {
    for (const banks of BANK_COUNTS) {
      const opened = await openBenchDb(`writes-${banks}`);
      dbs.push({ banks, opened, retain: [], import: [], full: [] });
      const r = prng(11);
      for (let b = 0; b < banks; b++) {
        await createBenchBank(opened.db, `bank-${b}`);
        await insertFacts(opened.db, r, 0, FACTS_PER_BANK, `bank-${b}`);
      }
      // Unmeasured: the first write of a process also compiles its code.
      await retain(opened.db, "bank-0", facts(100, 0));
      await importBundle(opened.db, bundle("warm-up", 1_000));
    }
    // Retains first: an import creates the new bank's index (a schema change), after which each
    // connection reparses the schema once, a cost of creating banks rather than of writing.
    for (let round = 0; round < ROUNDS; round++)
      for (const d of dbs) d.retain.push((await timed(() => retain(d.opened.db, "bank-0", facts(100, round + 1)))).ms);
    for (let round = 0; round < ROUNDS; round++)
      for (const d of dbs)
        d.import.push((await timed(() => importBundle(d.opened.db, bundle(`import-${round}`, 1_000)))).ms);
    for (const d of dbs) {
      const before = await schemaRows(d.opened.db);
      await importBundle(d.opened.db, bundle("objects", 1_000));
      const newBank = (await schemaRows(d.opened.db)) - before;
      results.push({
        banks: d.banks,
        retain: median(d.retain),
        import: median(d.import),
        full: 0,
        schema: before,
        newBank,
        read: await schemaReadMs(d.opened.path),
      });
    }
    for (let round = 0; round < ROUNDS; round++)
      for (const d of dbs)
        d.full.push((await timed(() => importBundle(d.opened.db, bundle(`full-${round}`, 1_000, true)))).ms);
    for (const [i, d] of dbs.entries()) results[i]!.full = median(d.full);
  } finally {
    for (const d of dbs) d.opened.cleanup();
  }
  for (const res of results)
    log(
      `  ${res.banks} bank(s): 100-fact retain p50 ${res.retain.toFixed(1)} ms, 1k-fact import p50 ${res.import.toFixed(1)} ms (all tiers ${res.full.toFixed(1)} ms); schema ${res.schema} rows (+${res.newBank} per new bank), read by a new connection in ${res.read.toFixed(1)} ms`,
    );
  const one = results[0]!;
  const most = results.at(-1)!;
  const rows: BenchRow[] = [];
  for (const res of results) {
    rows.push(row("writes", `100-fact retain p50, ${res.banks} bank(s)`, res.retain, "ms"));
    rows.push(row("writes", `1k-fact import p50, ${res.banks} bank(s)`, res.import, "ms"));
    rows.push(
      row("writes", `1k-fact import with observations and mental models p50, ${res.banks} bank(s)`, res.full, "ms"),
    );
    rows.push(row("writes", `schema rows (sqlite_master), ${res.banks} bank(s)`, res.schema, ""));
    rows.push(row("writes", `schema read by a new connection, ${res.banks} bank(s)`, res.read, "ms"));
  }
  rows.push(row("writes", "schema rows a new 1k-fact bank adds", most.newBank, ""));
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
  rows.push(
    row(
      "writes",
      `1k-fact import with observations and mental models: ${most.banks} banks ÷ 1 bank`,
      most.full / one.full,
      "×",
    ),
  );
  return rows;
}
