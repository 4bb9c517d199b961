/**
 * §8 A million facts (opt-in: `npm run bench -- million`, several minutes): a 1M-fact bank written
 * as a JSON-lines bundle on the fly, imported through the CLI as `npm run cli` runs it (the prebuilt
 * dist/cli.mjs; `import x.jsonl`, which streams it)
 * while `/usr/bin/time` records the process's peak memory, then recall p50/p95 on it through the
 * memory port — with the top-10 agreement of each answer with the exhaustive ranking
 * (agreement.ts) — and one offline reflect through the CLI, its own time split by phase. Targets:
 * docs/performance.md#search-at-a-million-facts.
 */
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { openDb } from "@/db/client";
import { createMemoryStore } from "@/db/memory-store";
import { agreement, exhaustiveFactIds } from "./agreement";
import { factText, question } from "./corpus";
import { atMost, type BenchRow, percentile, prng, row, TMP_DIR, timed } from "./report";

const FACTS = Number(process.env.BENCH_MILLION_FACTS ?? 1_000_000);
const BANK = "million";
const MAX_RSS_MIB = 1024;
const MAX_IMPORT_S = 300;
const RECALL_P50_MS = 50;
const RECALL_P95_MS = 150;
const MIN_AGREEMENT_PCT = 95;
const MAX_REFLECT_S = 2;
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
    ["-f", "%e s %M KiB", process.execPath, join(ROOT, "scripts/cli.mjs"), ...args],
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
    // `npm run cli` builds dist/cli.mjs when it is stale: build it before anything is timed.
    cli(dbUrl, "--help");
    const imported = cli(dbUrl, "import", file);
    log(
      `  import: ${imported.seconds.toFixed(1)} s, peak RSS ${imported.rssMiB.toFixed(0)} MiB; ${imported.stdout.trim()}`,
    );
    rmSync(file);
    const db = await openDb(dbUrl);
    const recall: number[] = [];
    const cpu: number[] = [];
    let shared = 0;
    let of = 0;
    try {
      const memory = createMemoryStore(db);
      const r = prng(5);
      for (let i = 0; i < QUERIES; i++) {
        const q = { bankId: BANK, query: question(r), limit: 20, tags: [], scope: "personal" as const };
        const before = process.cpuUsage();
        const t = await timed(() => memory.recall(q));
        const used = process.cpuUsage(before);
        if (i > 0) {
          // the first query warms the page cache
          recall.push(t.ms);
          cpu.push((used.user + used.system) / 1000);
        }
        const a = agreement(
          await exhaustiveFactIds(db, BANK, q.query, [q.scope]),
          t.value.map((f) => f.id),
        );
        shared += a.shared;
        of += a.of;
      }
    } finally {
      db.$client.close();
    }
    const agreePct = of === 0 ? 0 : (100 * shared) / of;
    const load = loadavg()
      .map((l) => l.toFixed(1))
      .join(" ");
    log(
      `  recall: p50 ${percentile(recall, 50).toFixed(1)} ms, p95 ${percentile(recall, 95).toFixed(1)} ms (process CPU p50 ${percentile(cpu, 50).toFixed(1)} ms, p95 ${percentile(cpu, 95).toFixed(1)} ms; load ${load}); top-10 agreement with the exhaustive ranking ${agreePct.toFixed(1)} %`,
    );
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
    const result = JSON.parse(reflect.stdout) as { status?: string; events?: ReflectEvent[] };
    const status = result.status;
    const phases = reflectPhases(result.events ?? []);
    log(
      `  reflect (offline, CLI process incl. start-up): ${reflect.seconds.toFixed(1)} s, status ${status}; the run itself ${(phases.runMs / 1000).toFixed(2)} s: ${phases.text}`,
    );
    const section = "8 million";
    return [
      row(
        section,
        `CLI import of ${FACTS.toLocaleString("en-US")} facts (.jsonl, streamed)`,
        imported.seconds,
        "s",
        atMost(imported.seconds, MAX_IMPORT_S, "s"),
      ),
      row(section, "CLI import peak RSS", imported.rssMiB, "MiB", atMost(imported.rssMiB, MAX_RSS_MIB, "MiB")),
      row(section, "database file", dbMiB, "MiB"),
      row(
        section,
        "recall p50",
        percentile(recall, 50),
        "ms",
        atMost(percentile(recall, 50), RECALL_P50_MS, "ms"),
        `load ${load}`,
      ),
      row(
        section,
        "recall p95",
        percentile(recall, 95),
        "ms",
        atMost(percentile(recall, 95), RECALL_P95_MS, "ms"),
        `load ${load}`,
      ),
      row(section, "recall process CPU p50", percentile(cpu, 50), "ms"),
      row(section, "recall top-10 agreement with the exhaustive ranking", agreePct, "%", {
        target: `≥ ${MIN_AGREEMENT_PCT} %`,
        met: agreePct >= MIN_AGREEMENT_PCT,
      }),
      row(
        section,
        `reflect (offline, CLI process) → ${status}`,
        reflect.seconds,
        "s",
        atMost(reflect.seconds, MAX_REFLECT_S, "s"),
        "incl. the CLI's start-up",
      ),
      row(section, "reflect: the run itself (first to last event)", phases.runMs / 1000, "s"),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface ReflectEvent {
  at: number;
  type: string;
  payload?: { tool?: string };
}

/** The run's time by phase, from its events' offsets: model turns, each tool call, the probe. */
function reflectPhases(events: ReflectEvent[]): { runMs: number; text: string } {
  const parts = new Map<string, number>();
  const add = (name: string, ms: number) => parts.set(name, (parts.get(name) ?? 0) + ms);
  for (const [i, e] of events.entries()) {
    const next = events[i + 1];
    if (!next) break;
    const ms = next.at - e.at;
    if (e.type === "run.started") add("start → first model request", ms);
    else if (e.type === "llm.request") add("model (offline)", ms);
    else if (e.type === "tool.call") add(`tool ${e.payload?.tool ?? "?"}`, ms);
    else if (next.type === "probe.finished") add("probe", ms);
    else add("other", ms);
  }
  const runMs = events.length > 0 ? events.at(-1)!.at - events[0]!.at : 0;
  const text = [...parts.entries()].map(([name, ms]) => `${name} ${ms} ms`).join(", ");
  return { runMs, text };
}
