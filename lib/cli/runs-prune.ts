/**
 * `runs prune (--older-than 30d | --keep N) [--bank b] [--dry-run] [--vacuum] [--json]` and
 * `runs retention --bank b [--older-than 30d | --keep N | --off] [--json]` (docs/operations.md#run-retention).
 */
import type { z } from "zod";
import { Id } from "@/lib/contracts/fields";
import { KEEP_REASON_TEXT, type PruneResult, PruneRunsBody, RetentionRule } from "@/lib/contracts/retention";
import { getCliDb } from "@/lib/server/runtime/db";
import { pruneRunsNow, readRunRetention, saveRunRetention } from "@/lib/server/services/retention";
import { plural } from "@/lib/timeline/format";
import { parseFlags, usageError } from "./args";

const FLAG_NAMES: Record<string, string> = { olderThan: "--older-than", keep: "--keep", bank: "--bank" };
const ONE_RULE = "give exactly one of --older-than <30d|12h> and --keep <N>";

/** `--keep` as a number: only digits (a "10x" or "-1" is refused, not read as 10 or NaN). */
function keepNumber(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,7}$/.test(value.trim())) throw usageError("--keep must be a whole number ≥ 0");
  return Number(value.trim());
}

function parseOrUsage<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const flag = FLAG_NAMES[String(issue?.path[0] ?? "")];
  throw usageError(`${flag ? `${flag}: ` : ""}${issue?.message ?? "invalid arguments"}`);
}

export function parsePruneArgs(argv: string[]) {
  const { values, positionals } = parseFlags(argv, {
    "older-than": { type: "string" },
    keep: { type: "string" },
    bank: { type: "string" },
    "dry-run": { type: "boolean" },
    vacuum: { type: "boolean" },
    json: { type: "boolean" },
  });
  if (positionals.length > 0) throw usageError(`unexpected argument "${positionals[0]}"`);
  if ((values["older-than"] === undefined) === (values.keep === undefined)) throw usageError(ONE_RULE);
  const input = parseOrUsage(PruneRunsBody, {
    olderThan: values["older-than"],
    keep: keepNumber(values.keep),
    bank: values.bank,
    dryRun: values["dry-run"] === true,
    vacuum: values.vacuum === true,
  });
  return { input, json: values.json === true };
}

const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

export function formatPrune(r: PruneResult): string {
  const rule =
    r.rule.olderThan !== undefined ? `older than ${r.rule.olderThan}` : `beyond each bank's newest ${r.rule.keep}`;
  const where = r.bank ? ` of bank ${r.bank}` : "";
  const lines = [
    `${plural(r.matched, "run")}${where} ${rule}`,
    `${r.dryRun ? "would remove" : "removed"} ${plural(r.deleted, "run")} and ${plural(r.deletedEvents, "event")}${r.deletedExamples.length ? ` (e.g. ${r.deletedExamples.join(", ")})` : ""}`,
  ];
  if (r.kept.total > 0) {
    lines.push(`kept ${plural(r.kept.total, "run")} that something refers to:`);
    for (const k of r.kept.reasons) {
      lines.push(`  ${k.count}  ${KEEP_REASON_TEXT[k.reason]} (e.g. ${k.examples.join(", ")})`);
    }
  }
  if (r.dryRun) lines.push("dry run: nothing was changed");
  else {
    const how = r.storage.vacuum === "none" ? "" : ` (${r.storage.vacuum} vacuum)`;
    lines.push(`database: ${mb(r.storage.bytesBefore)} → ${mb(r.storage.bytesAfter)}${how}`);
    if (r.storage.note) lines.push(`note: ${r.storage.note}`);
  }
  return lines.join("\n");
}

export async function runsPruneCommand(argv: string[]): Promise<void> {
  const { input, json } = parsePruneArgs(argv);
  const result = await pruneRunsNow(await getCliDb(), input);
  console.log(json ? JSON.stringify(result) : formatPrune(result));
}

export function parseRetentionArgs(argv: string[]) {
  const { values, positionals } = parseFlags(argv, {
    bank: { type: "string" },
    "older-than": { type: "string" },
    keep: { type: "string" },
    off: { type: "boolean" },
    json: { type: "boolean" },
  });
  if (positionals.length > 0) throw usageError(`unexpected argument "${positionals[0]}"`);
  if (values.bank === undefined) throw usageError("--bank is required");
  const bank = Id.safeParse(values.bank);
  if (!bank.success) throw usageError(`--bank: ${bank.error.issues[0]?.message ?? "not a bank id"}`);
  const given = [values["older-than"] !== undefined, values.keep !== undefined, values.off === true].filter(Boolean);
  if (given.length > 1) throw usageError("give one of --older-than, --keep and --off");
  const rule =
    values.off === true
      ? null
      : given.length === 0
        ? undefined
        : parseOrUsage(RetentionRule, { olderThan: values["older-than"], keep: keepNumber(values.keep) });
  return { bank: bank.data, rule, json: values.json === true };
}

export async function runsRetentionCommand(argv: string[]): Promise<void> {
  const { bank, rule, json } = parseRetentionArgs(argv);
  const db = await getCliDb();
  const setting = rule === undefined ? await readRunRetention(db, bank) : await saveRunRetention(db, bank, rule);
  if (json) {
    console.log(JSON.stringify(setting));
    return;
  }
  const r = setting.retention;
  console.log(
    r === null
      ? `bank ${bank}: no run retention (runs are kept until pruned)`
      : `bank ${bank}: the server removes runs ${r.olderThan !== undefined ? `older than ${r.olderThan}` : `beyond the newest ${r.keep}`} (runs something refers to are kept)`,
  );
}
