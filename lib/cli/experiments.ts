/**
 * `suite import|export` and `experiment run` (docs/experiments.md, a stable contract). `experiment run` exits 1
 * when any expectation fails or any regression against the baseline appears; 3 when none did but
 * the experiment did not complete (cancelled, or stopped by an error), so some questions were
 * skipped — never run, so neither passed nor failed; 0 otherwise. Bad input exits 2 like every command,
 * and so does a baseline that is not complete unless `--allow-incomplete-baseline` is given.
 */

import { z } from "zod";
import { isAppError } from "@/lib/contracts/errors";
import {
  type Experiment,
  type ExperimentComparison,
  type ExperimentJson,
  MAX_CONCURRENCY,
  type Scorecard,
  type ScoreLine,
  StartExperimentInput,
} from "@/lib/contracts/experiments";
import { SuiteName } from "@/lib/contracts/suites";
import { decodeUtf8 } from "@/lib/contracts/text";
import { comparisonCounts, configDiff } from "@/lib/experiments/compare";
import { Budget } from "@/lib/reflect";
import { getCliDb } from "@/lib/server/runtime/db";
import {
  getExperimentComparison,
  startExperiment,
  suiteSkillNames,
  totalsSentence,
} from "@/lib/server/services/experiments";
import { exportSuiteJsonl, importSuiteJsonl } from "@/lib/server/services/suites";
import { plural } from "@/lib/timeline/format";
import { parseFlags, parseWith, usageError } from "./args";
import { COMMAND_HELP } from "./help";
import { type CliIo, inputName, readInput, STDIO, say } from "./io";
import { terminalSafe } from "./terminal";

const BankSuite = z.object({
  bank: z.string({ error: "--bank is required" }).min(1, "--bank is required"),
  suite: z.string({ error: "--suite is required" }).pipe(SuiteName),
});

export async function suiteCommand(argv: string[], io: CliIo): Promise<void> {
  const [sub, ...rest] = argv;
  const usage = `usage: ${COMMAND_HELP.suite.usage}`;
  const { values, positionals } = parseFlags(rest, { bank: { type: "string" }, suite: { type: "string" } });
  const args = parseWith(BankSuite, values);
  if (sub === "import") {
    const file = positionals[0];
    if (!file || positionals.length > 1) throw usageError(usage);
    let text: string;
    try {
      text = decodeUtf8(await readInput(io, file), inputName(file));
    } catch (err) {
      if (isAppError(err)) throw err;
      throw usageError(`cannot read ${inputName(file)}: ${(err as Error).message.split("\n")[0]}`);
    }
    if (file === STDIO && !text.trim())
      throw usageError("stdin is empty: pipe the suite's JSONL in (nothing was imported)");
    const db = await getCliDb();
    const suite = await importSuiteJsonl(db, args.bank, args.suite, text);
    say(io, `imported suite ${suite.name} (version ${suite.version}): ${suite.questions.length} questions`);
    return;
  }
  if (sub === "export") {
    if (positionals.length) throw usageError(usage);
    const db = await getCliDb();
    io.stdout.write(await exportSuiteJsonl(db, args.bank, args.suite));
    return;
  }
  throw usageError(usage);
}

const RunArgs = BankSuite.extend({
  budget: Budget.optional(),
  skill: z.string().min(1).optional(),
  "skill-version": z.coerce.number().int().positive().optional(),
  baseline: z.string().min(1).optional(),
  "allow-incomplete-baseline": z.boolean().default(false),
  concurrency: z.coerce.number().int().min(1).max(MAX_CONCURRENCY).optional(),
  json: z.boolean().default(false),
});

const short = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const pct = (x: number | null) => (x === null ? "—" : `${Math.round(x * 100)}%`);
const ms = (x: number | null) => (x === null ? "—" : `${Math.round(x)}ms`);

/** The scorecard as a table: one line per tag, then all (shown when the suite has tags or scores). */
export function scorecardTable(card: Scorecard): string[] {
  const head = ["tag", "n", "pass", "F1", "gold", "ev.retr", "ev.cited", "abstain", "calls", "judge", "p50", "p95"];
  const cells = (l: ScoreLine) => [
    l.tag ?? "all",
    String(l.finished === l.questions ? l.questions : `${l.finished}/${l.questions}`),
    pct(l.passRate),
    l.meanF1 === null ? "—" : l.meanF1.toFixed(2),
    pct(l.goldContained),
    pct(l.evidenceRetrieved),
    pct(l.evidenceCited),
    pct(l.abstention),
    String(l.llmCalls),
    String(l.judgeCalls),
    ms(l.latencyP50Ms),
    ms(l.latencyP95Ms),
  ];
  const body = [...card.byTag, card.overall].map(cells);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? "").length)));
  const fmt = (r: string[]) =>
    `  ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ")}`;
  return ["Scorecard", fmt(head), ...body.map(fmt)];
}

function table(e: Experiment, cmp: ExperimentComparison | null): string {
  const regressed = new Map(cmp?.questions.filter((q) => q.head).map((q) => [q.head?.index, q]) ?? []);
  const lines = [`Experiment ${e.id}: suite ${e.suite} v${e.suiteVersion}, ${e.status}`];
  if (cmp) {
    const diff = configDiff(cmp.base, e);
    lines.push(
      diff.length
        ? `Against ${cmp.base.id}, the configuration differs: ${diff.map((c) => `${c.what} ${c.base} → ${c.head}`).join("; ")}`
        : `Against ${cmp.base.id}: the same configuration`,
    );
  }
  lines.push(`  #  result  status        calls  question`);
  for (const r of e.rows) {
    const q = regressed.get(r.index);
    const result = r.status === "skipped" ? "skip" : r.passed === null ? "—" : r.passed ? "pass" : "FAIL";
    lines.push(
      `${String(r.index + 1).padStart(3)}  ${result.padEnd(6)}  ${r.status.padEnd(12)}  ${String(r.llmCalls).padStart(5)}  ${short(r.question, 70)}`,
    );
    for (const f of r.failures) lines.push(`       ✗ ${f.expectation}: ${f.detail}`);
    if (q?.regression) for (const c of q.regressions) lines.push(`       ↓ regression (${c.kind}): ${c.detail}`);
    if (q?.improvement) for (const c of q.improvements) lines.push(`       ↑ improvement (${c.kind}): ${c.detail}`);
    // The other direction's changes are listed too, never counted: one question is one verdict.
    if (q?.regression) for (const c of q.improvements) lines.push(`       (but ${c.kind}: ${c.detail})`);
    if (q?.improvement) for (const c of q.regressions) lines.push(`       (but ${c.kind}: ${c.detail})`);
    if (r.judgeRunId) lines.push(`       judged by run ${r.judgeRunId}`);
    if (r.flags.length) lines.push(`       flags: ${r.flags.join(", ")}`);
  }
  const t = e.totals;
  const notCompared = cmp ? comparisonCounts(cmp.questions).notCompared : 0;
  const unrun = notCompared ? `, ${plural(notCompared, "question")} not compared (not run on both sides)` : "";
  if (e.scorecard.byTag.length > 0 || e.scorecard.overall.meanF1 !== null) lines.push(...scorecardTable(e.scorecard));
  lines.push(
    `${totalsSentence(t)}${cmp ? `; against ${cmp.base.id}: ${plural(cmp.totals.regressions, "regression")}, ${plural(cmp.totals.improvements, "improvement")}${unrun}` : ""}`,
  );
  if (e.error) lines.push(e.error);
  return lines.join("\n");
}

export function toExperimentJson(e: Experiment, cmp: ExperimentComparison | null): ExperimentJson {
  const byIndex = new Map(cmp?.questions.filter((q) => q.head).map((q) => [q.head?.index, q]) ?? []);
  return {
    id: e.id,
    suite: e.suite,
    config: e.config,
    totals: {
      questions: e.totals.questions,
      passed: e.totals.passed,
      failed: e.totals.failed,
      skipped: e.totals.skipped,
      regressions: cmp?.totals.regressions ?? 0,
      improvements: cmp?.totals.improvements ?? 0,
      notCompared: cmp ? comparisonCounts(cmp.questions).notCompared : 0,
    },
    scorecard: e.scorecard,
    results: e.rows.map((r) => ({
      question: r.question,
      runId: r.runId,
      status: r.status,
      llmCalls: r.llmCalls,
      passed: r.passed,
      failures: r.failures,
      regression: byIndex.get(r.index)?.regression ?? false,
      reason: byIndex.get(r.index)?.reason ?? null,
      tags: r.tags,
      scores: r.scores,
      judgeRunId: r.judgeRunId,
      flags: r.flags,
    })),
  };
}

export async function experimentCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== "run") throw usageError(`usage: ${COMMAND_HELP.experiment.usage}`);
  const { values, positionals } = parseFlags(rest, {
    bank: { type: "string" },
    suite: { type: "string" },
    budget: { type: "string" },
    skill: { type: "string" },
    "skill-version": { type: "string" },
    baseline: { type: "string" },
    "allow-incomplete-baseline": { type: "boolean" },
    concurrency: { type: "string" },
    json: { type: "boolean" },
  });
  if (positionals.length) throw usageError(`usage: ${COMMAND_HELP.experiment.usage}`);
  const args = parseWith(RunArgs, values);
  if (args["allow-incomplete-baseline"] && !args.baseline)
    throw usageError("--allow-incomplete-baseline applies to a --baseline: name the experiment to compare with");
  if (args.skill && args["skill-version"] === undefined)
    throw usageError("--skill names the skill --skill-version applies to");
  const db = await getCliDb();
  let skill: { name: string; version: number } | undefined;
  if (args["skill-version"] !== undefined) {
    let name = args.skill;
    if (!name) {
      const names = await suiteSkillNames(db, args.bank, args.suite);
      if (names.length !== 1) {
        throw usageError(
          `suite ${args.suite} runs ${names.length} skills (${names.join(", ")}): name one with --skill`,
        );
      }
      name = names[0];
    }
    skill = { name: name as string, version: args["skill-version"] };
  }
  const input = parseWith(StartExperimentInput, {
    bankId: args.bank,
    suite: args.suite,
    config: { budget: args.budget, skill, mentalModels: [] },
    baseline: args.baseline,
    allowIncompleteBaseline: args["allow-incomplete-baseline"],
    concurrency: args.concurrency,
  });
  const { experimentId, finished } = await startExperiment(db, input, {
    onProgress: (p) => {
      if (p.status === "running") {
        io.stderr.write(`[${p.finished}/${p.questions}] ${p.passed} passed, ${p.failed} failed\n`);
      }
    },
  });
  io.stderr.write(`experiment ${experimentId}: running suite ${args.suite}\n`);
  const experiment = await finished;
  const cmp = args.baseline ? await getExperimentComparison(db, args.baseline, experiment.id) : null;
  say(io, args.json ? JSON.stringify(toExperimentJson(experiment, cmp)) : terminalSafe(table(experiment, cmp)));
  return gateExitCode(experiment, cmp, io);
}

/** The gate (see the file comment): a failure beats an incomplete run; a skipped question is no failure. */
function gateExitCode(experiment: Experiment, cmp: ExperimentComparison | null, io: CliIo): number {
  if (experiment.totals.failed > 0 || (cmp !== null && cmp.totals.regressions > 0)) return 1;
  if (experiment.status !== "done") {
    io.stderr.write(
      `experiment ${experiment.status}: ${plural(experiment.totals.skipped, "question")} skipped (not run); no expectation failed among those that ran\n`,
    );
    return 3;
  }
  return 0;
}
