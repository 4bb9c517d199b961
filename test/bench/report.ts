/** Benchmark rows, timing helpers and the printed table shared by every section. */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type Db, openDb } from "@/db/client";

export interface BenchRow {
  section: string;
  metric: string;
  value: number;
  unit: string;
  /** Human-readable goal, e.g. "≤ 10 ms"; null for informational figures. */
  target: string | null;
  /** Whether the target is met; null when there is no target. */
  met: boolean | null;
  note?: string;
}

export function row(
  section: string,
  metric: string,
  value: number,
  unit: string,
  goal?: { target: string; met: boolean },
  note?: string,
): BenchRow {
  return {
    section,
    metric,
    value,
    unit,
    target: goal?.target ?? null,
    met: goal?.met ?? null,
    ...(note ? { note } : {}),
  };
}

/** A target of the form "value ≤ limit". */
export const atMost = (value: number, limit: number, unit: string) => ({
  target: `≤ ${limit}${unit ? ` ${unit}` : ""}`,
  met: value <= limit,
});

export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const median = (samples: readonly number[]) => percentile(samples, 50);

export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

/** Deterministic PRNG (mulberry32) so generated data and query mixes are identical run to run. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  };
}
export type Prng = ReturnType<typeof prng>;

export const TMP_DIR = join(import.meta.dirname, "..", ".tmp");

/** A fresh, migrated libSQL file under test/.tmp (bench-<name>), removed by `cleanup`. */
export async function openBenchDb(name: string): Promise<{ db: Db; path: string; cleanup: () => void }> {
  const dir = join(TMP_DIR, `bench-${name}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "bench.db");
  const db = await openDb(`file:${path}`);
  return {
    db,
    path,
    cleanup: () => {
      db.$client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const fmt = (v: number) =>
  !Number.isFinite(v) ? String(v) : Number.isInteger(v) ? v.toLocaleString("en-US") : v.toFixed(v < 10 ? 2 : 1);

export function formatValue(r: BenchRow): string {
  return `${fmt(r.value)}${r.unit ? ` ${r.unit}` : ""}`;
}

/** A plain-text table (also valid Markdown) of every row. */
export function formatTable(rows: readonly BenchRow[]): string {
  const header = ["section", "metric", "value", "target", "met"];
  const cells = rows.map((r) => [
    r.section,
    r.note ? `${r.metric} (${r.note})` : r.metric,
    formatValue(r),
    r.target ?? "—",
    r.met === null ? "" : r.met ? "✓" : "✗",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => `| ${c.map((v, i) => v.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...cells.map(line)].join("\n");
}
