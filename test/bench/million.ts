/**
 * §8 A million facts (opt-in: `npm run bench -- million`, several minutes): a 1M-fact bank written
 * as a JSON-lines bundle on the fly, imported through the CLI (`import x.jsonl`, which streams it)
 * while `/usr/bin/time` records the process's peak memory, then recall p50/p95 on it through the
 * memory port and one offline reflect through the CLI.
 */
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { openDb } from "@/db/client";
import { createMemoryStore } from "@/db/queries/memory-store";
import { factText, question } from "./corpus";
import { atMost, type BenchRow, percentile, prng, row, TMP_DIR, timed } from "./report";

const FACTS = Number(process.env.BENCH_MILLION_FACTS ?? 1_000_000);
const BANK = "million";
const MAX_RSS_MIB = 1024;
const QUERIES = 40;
const ROOT = resolve(import.meta.dirname, "../..");

async function writeBundle(file: string): Promise<void> {
  const out = createWriteStream(file);
  const r = prng(1_000_000);
  const write = async (line: string) => {
    if (!out.write(`${line}\n`)) await once(out, "drain");
  };
  await write(JSON.stringify({ version: 1, bank: { id: BANK, name: "A million facts", permittedTeams: [] } }));
  const start = Date.parse("2024-01-01T00:00:00Z");
  for (let i = 0; i < FACTS; i++) {
    const recordedAt = new Date(start + i * 60_000).toISOString();
    await write(
      JSON.stringify({
        fact: { id: `f-${i}`, text: factText(r), kind: "world", tags: [], scope: "personal", recordedAt },
      }),
    );
  }
  // The demo bank's default skill, so the reflect below runs as it would on the demo bank.
  const demo = JSON.parse(readFileSync(join(ROOT, "db/demo/demo-bank.json"), "utf8")) as { skills: { name: string }[] };
  await write(JSON.stringify({ skill: demo.skills.find((s) => s.name === "recap") }));
  out.end();
  await once(out, "finish");
}

function cli(dbUrl: string, ...args: string[]) {
  const res = spawnSync(
    "/usr/bin/time",
    ["-f", "%e s %M KiB", process.execPath, join(ROOT, "node_modules/tsx/dist/cli.mjs"), "lib/cli/main.ts", ...args],
    {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: dbUrl, REFLECT_LLM: "offline", OPENAI_API_KEY: "" },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const m = /([\d.]+) s (\d+) KiB\s*$/.exec(res.stderr);
  if (res.status !== 0 || !m) throw new Error(`cli ${args[0]} failed (${res.status}):\n${res.stderr.slice(-2000)}`);
  return { seconds: Number(m[1]), rssMiB: Number(m[2]) / 1024, stdout: res.stdout };
}

export async function benchMillion(log: (line: string) => void): Promise<BenchRow[]> {
  if (!existsSync("/usr/bin/time")) throw new Error("the million section needs /usr/bin/time (apt-get install time)");
  const dir = join(TMP_DIR, "bench-million");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const dbUrl = `file:${join(dir, "bench.db")}`;
  try {
    const file = join(dir, "million.jsonl");
    const written = await timed(() => writeBundle(file));
    log(
      `  bundle: ${FACTS.toLocaleString("en-US")} facts, ${(statSync(file).size / 2 ** 20).toFixed(0)} MiB of JSON lines (${(written.ms / 1000).toFixed(1)} s)`,
    );
    const imported = cli(dbUrl, "import", file);
    log(
      `  import: ${imported.seconds.toFixed(1)} s, peak RSS ${imported.rssMiB.toFixed(0)} MiB; ${imported.stdout.trim()}`,
    );
    rmSync(file);
    const db = await openDb(dbUrl);
    const recall: number[] = [];
    try {
      const memory = createMemoryStore(db);
      const r = prng(5);
      for (let i = 0; i < QUERIES; i++) {
        const q = { bankId: BANK, query: question(r), limit: 20, tags: [], scope: "personal" as const };
        const t = await timed(() => memory.recall(q));
        if (i > 0) recall.push(t.ms); // the first query warms the page cache
      }
    } finally {
      db.$client.close();
    }
    const dbMiB = statSync(join(dir, "bench.db")).size / 2 ** 20;
    log(`  database file: ${dbMiB.toFixed(0)} MiB`);
    const reflect = cli(
      dbUrl,
      "reflect",
      "--bank",
      BANK,
      "--json",
      "What did the platform team decide about the launch?",
    );
    const status = (JSON.parse(reflect.stdout) as { status?: string }).status;
    log(`  reflect (offline, CLI process incl. start-up): ${reflect.seconds.toFixed(1)} s, status ${status}`);
    const section = "8 million";
    return [
      row(section, `CLI import of ${FACTS.toLocaleString("en-US")} facts (.jsonl, streamed)`, imported.seconds, "s"),
      row(section, "CLI import peak RSS", imported.rssMiB, "MiB", atMost(imported.rssMiB, MAX_RSS_MIB, "MiB")),
      row(section, "database file", dbMiB, "MiB"),
      row(section, "recall p50", percentile(recall, 50), "ms"),
      row(section, "recall p95", percentile(recall, 95), "ms"),
      row(section, `reflect (offline, CLI process) → ${status}`, reflect.seconds, "s"),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
