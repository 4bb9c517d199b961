/**
 * `suite import|export` and `experiment run` (docs/experiments.md, a stable contract). `experiment run` exits 1
 * when any expectation fails or any regression against the baseline appears; 3 when none did but
 * the experiment did not complete (cancelled, or stopped by an error), so some questions were
 * skipped — never run, so neither passed nor failed; 0 otherwise. Bad input exits 2 like every command.
 */

import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { z } from "zod";
import { isAppError } from "@/lib/contracts/errors";
import {
  type Experiment,
  type ExperimentComparison,
  type ExperimentJson,
  MAX_CONCURRENCY,
  StartExperimentInput,
} from "@/lib/contracts/experiments";
import { SuiteName } from "@/lib/contracts/suites";
import { decodeUtf8 } from "@/lib/contracts/text";
import { Budget } from "@/lib/reflect";
import { getCliDb } from "@/lib/server/db";
import { getExperimentComparison, startExperiment, suiteSkillNames, totalsSentence } from "@/lib/server/experiments";
import { exportSuiteJsonl, importSuiteJsonl } from "@/lib/server/suites";
import { plural } from "@/lib/timeline/format";
import { parseWith, usageError } from "./args";
import { COMMAND_HELP } from "./help";
import { terminalSafe } from "./terminal";

function parse<O extends NonNullable<Parameters<typeof parseArgs>[0]>["options"]>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw usageError((err as Error).message.split("\n")[0] ?? "invalid arguments");
  }
}

const BankSuite = z.object({
  bank: z.string({ error: "--bank is required" }).min(1, "--bank is required"),
  suite: z.string({ error: "--suite is required" }).pipe(SuiteName),
});

export async function suiteCommand(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  const usage = `usage: ${COMMAND_HELP.suite.usage}`;
  const { values, positionals } = parse(rest, { bank: { type: "string" }, suite: { type: "string" } });
  const args = parseWith(BankSuite, values);
  if (sub === "import") {
    const file = positionals[0];
    if (!file || positionals.length > 1) throw usageError(usage);
    let text: string;
    try {
      text = decodeUtf8(readFileSync(file), file);
    } catch (err) {
      if (isAppError(err)) throw err;
      throw usageError(`cannot read ${file}: ${(err as Error).message.split("\n")[0]}`);
    }
    const db = await getCliDb();
    const suite = await importSuiteJsonl(db, args.bank, args.suite, text);
    console.log(`imported suite ${suite.name} (version ${suite.version}): ${suite.questions.length} questions`);
    return;
  }
  if (sub === "export") {
    if (positionals.length) throw usageError(usage);
    const db = await getCliDb();
    process.stdout.write(await exportSuiteJsonl(db, args.bank, args.suite));
    return;
  }
  throw usageError(usage);
}

const RunArgs = BankSuite.extend({
  budget: Budget.optional(),
  skill: z.string().min(1).optional(),
  "skill-version": z.coerce.number().int().positive().optional(),
  baseline: z.string().min(1).optional(),
  concurrency: z.coerce.number().int().min(1).max(MAX_CONCURRENCY).optional(),
  json: z.boolean().default(false),
});

const short = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function table(e: Experiment, cmp: ExperimentComparison | null): string {
  const regressed = new Map(cmp?.questions.filter((q) => q.head).map((q) => [q.head?.index, q]) ?? []);
  const lines = [`Experiment ${e.id}: suite ${e.suite} v${e.suiteVersion}, ${e.status}`];
  lines.push(`  #  result  status        calls  question`);
  for (const r of e.rows) {
    const q = regressed.get(r.index);
    const result = r.status === "skipped" ? "skip" : r.passed === null ? "—" : r.passed ? "pass" : "FAIL";
    lines.push(
      `${String(r.index + 1).padStart(3)}  ${result.padEnd(6)}  ${r.status.padEnd(12)}  ${String(r.llmCalls).padStart(5)}  ${short(r.question, 70)}`,
    );
    for (const f of r.failures) lines.push(`       ✗ ${f.expectation}: ${f.detail}`);
    for (const c of q?.regressions ?? []) lines.push(`       ↓ regression (${c.kind}): ${c.detail}`);
    for (const c of q?.improvements ?? []) lines.push(`       ↑ improvement (${c.kind}): ${c.detail}`);
    if (r.flags.length) lines.push(`       flags: ${r.flags.join(", ")}`);
  }
  const t = e.totals;
  lines.push(
    `${totalsSentence(t)}${cmp ? `; against ${cmp.base.id}: ${plural(cmp.totals.regressions, "regression")}, ${plural(cmp.totals.improvements, "improvement")}` : ""}`,
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
    },
    results: e.rows.map((r) => ({
      question: r.question,
      runId: r.runId,
      status: r.status,
      llmCalls: r.llmCalls,
      passed: r.passed,
      failures: r.failures,
      regression: byIndex.get(r.index)?.regression ?? false,
      flags: r.flags,
    })),
  };
}

export async function experimentCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== "run") throw usageError(`usage: ${COMMAND_HELP.experiment.usage}`);
  const { values, positionals } = parse(rest, {
    bank: { type: "string" },
    suite: { type: "string" },
    budget: { type: "string" },
    skill: { type: "string" },
    "skill-version": { type: "string" },
    baseline: { type: "string" },
    concurrency: { type: "string" },
    json: { type: "boolean" },
  });
  if (positionals.length) throw usageError(`usage: ${COMMAND_HELP.experiment.usage}`);
  const args = parseWith(RunArgs, values);
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
    concurrency: args.concurrency,
  });
  const { experimentId, finished } = await startExperiment(db, input, {
    onProgress: (p) => {
      if (p.status === "running") {
        process.stderr.write(`[${p.finished}/${p.questions}] ${p.passed} passed, ${p.failed} failed\n`);
      }
    },
  });
  process.stderr.write(`experiment ${experimentId}: running suite ${args.suite}\n`);
  const experiment = await finished;
  const cmp = args.baseline ? await getExperimentComparison(db, args.baseline, experiment.id) : null;
  console.log(args.json ? JSON.stringify(toExperimentJson(experiment, cmp)) : terminalSafe(table(experiment, cmp)));
  return gateExitCode(experiment, cmp);
}

/** The gate (see the file comment): a failure beats an incomplete run; a skipped question is no failure. */
function gateExitCode(experiment: Experiment, cmp: ExperimentComparison | null): number {
  if (experiment.totals.failed > 0 || (cmp !== null && cmp.totals.regressions > 0)) return 1;
  if (experiment.status !== "done") {
    process.stderr.write(
      `experiment ${experiment.status}: ${plural(experiment.totals.skipped, "question")} skipped (not run); no expectation failed among those that ran\n`,
    );
    return 3;
  }
  return 0;
}
