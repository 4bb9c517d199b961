/**
 * `npm run bench` — every performance figure with its target, as a table and as
 * test/bench/results.json (rows + machine). `npm run bench -- retrieval timeline` runs only the
 * named sections (and then does not overwrite results.json). `million` (a 1M-fact import, several
 * minutes), `import-lock` (a 250k-fact import beside a writer) and `import-flood` (8 JSON bundle
 * imports at once beside /api/health) run only when named.
 */
import { writeFileSync } from "node:fs";
import { cpus, loadavg, type as osType, release, totalmem } from "node:os";
import { join } from "node:path";
import { withoutAdmission } from "@/lib/server/runtime/admission";
import { benchCliStart } from "./cli-start";
import { benchConcurrency } from "./concurrency";
import { benchExperiments } from "./experiments";
import { benchImportFlood } from "./import-flood";
import { benchImportLock } from "./import-lock";
import { benchIsolation } from "./isolation";
import { benchLoad } from "./load";
import { benchLocomo } from "./locomo";
import { benchMillion } from "./million";
import { benchOffline } from "./offline";
import { benchOtlp } from "./otlp";
import { benchOverhead } from "./overhead";
import { benchProbe } from "./probe";
import { type BenchRow, formatTable } from "./report";
import { benchRetrieval } from "./retrieval";
import { benchRoundTrips } from "./round-trips";
import { benchStorage } from "./storage";
import { benchTimeline } from "./timeline";
import { benchWrites } from "./writes";

const SECTIONS: Record<string, (log: (line: string) => void, args: readonly string[]) => Promise<BenchRow[]>> = {
  retrieval: benchRetrieval,
  overhead: benchOverhead,
  "round-trips": benchRoundTrips,
  concurrency: benchConcurrency,
  timeline: benchTimeline,
  offline: benchOffline,
  isolation: benchIsolation,
  load: benchLoad,
  probe: benchProbe,
  experiments: benchExperiments,
  writes: benchWrites,
  storage: benchStorage,
  million: benchMillion,
  "import-lock": benchImportLock,
  "import-flood": benchImportFlood,
  cli: benchCliStart,
  locomo: benchLocomo,
  otlp: benchOtlp,
};

/** Sections that take many minutes: run only when named (`npm run bench -- million`). */
const OPT_IN = new Set(["million", "import-lock", "import-flood"]);

/** `--data <path>` (the LoCoMo file) and its value are options, not sections. */
function splitArgs(argv: readonly string[]): { wanted: string[]; options: string[] } {
  const wanted: string[] = [];
  const options: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i]!.startsWith("--")) options.push(argv[i]!, ...(argv[i + 1] !== undefined ? [argv[++i]!] : []));
    else wanted.push(argv[i]!);
  }
  return { wanted, options };
}

function machine() {
  return {
    os: `${osType()} ${release()}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? "unknown",
    totalMemoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
  };
}

async function main() {
  // In-process sections (concurrency, experiments) measure the engine, not the server's admission.
  withoutAdmission();
  const { wanted, options } = splitArgs(process.argv.slice(2));
  const unknown = wanted.filter((s) => !(s in SECTIONS));
  if (unknown.length > 0) {
    console.error(`unknown section(s): ${unknown.join(", ")}; choose from ${Object.keys(SECTIONS).join(", ")}`);
    process.exit(2);
  }
  const names = wanted.length > 0 ? wanted : Object.keys(SECTIONS).filter((name) => !OPT_IN.has(name));
  const m = machine();
  console.log(`bench on ${m.cpus} × ${m.cpuModel}, ${m.totalMemoryGiB} GiB, ${m.os}, node ${m.node}`);
  const rows: BenchRow[] = [];
  const started = performance.now();
  for (const name of names) {
    const t = performance.now();
    console.log(`\n▶ ${name}`);
    rows.push(...(await SECTIONS[name]!((line) => console.log(line), options)));
    // Timings on a shared machine mean little without the load they were measured under.
    const load = loadavg().map((l) => l.toFixed(1));
    console.log(`  (${((performance.now() - t) / 1000).toFixed(1)} s; load average ${load.join(" / ")})`);
  }
  const totalSeconds = (performance.now() - started) / 1000;
  console.log(`\n${formatTable(rows)}`);
  const missed = rows.filter((r) => r.met === false);
  console.log(
    `\n${rows.filter((r) => r.met !== null).length - missed.length} of ${rows.filter((r) => r.met !== null).length} targets met; total ${totalSeconds.toFixed(0)} s`,
  );
  if (wanted.length === 0) {
    const out = join(import.meta.dirname, "results.json");
    writeFileSync(
      out,
      `${JSON.stringify({ generatedAt: new Date().toISOString(), totalSeconds: Math.round(totalSeconds), machine: m, rows }, null, 2)}\n`,
    );
    console.log(`wrote ${out}`);
  }
  // Open handles (libSQL clients of the service layer, timers) must not keep the process alive.
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
