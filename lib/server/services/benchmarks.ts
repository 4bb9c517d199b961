/**
 * Importing a public benchmark as banks and suites: LoCoMo's file (lib/experiments/locomo.ts)
 * becomes one bank per conversation, each with the `qa` skill and a suite of every question.
 * Every bundle is built and validated before anything is written, so a bad file or an existing
 * bank (without `replace`) imports nothing; every repair of the data is reported.
 */
import type { z } from "zod";
import type { Db } from "@/db/client";
import { getBank } from "@/db/queries/banks";
import type { ImportResult } from "@/lib/contracts/banks";
import type { BenchmarkImportResult, LocomoImportOptions } from "@/lib/contracts/benchmarks";
import { AppError, formatPath, gotValue } from "@/lib/contracts/errors";
import { LocomoFile } from "@/lib/contracts/locomo";
import { assertValidText } from "@/lib/contracts/text";
import { type LocomoRepair, locomoBundle, readLocomoSample, unsuitedQuestions } from "@/lib/experiments/locomo";
import { importBundle, validateBundle } from "@/lib/server/services/bundle-io";

/** Repairs listed one by one in the result; the count covers them all. */
const REPAIR_EXAMPLES = 20;

export async function importLocomo(
  db: Db,
  json: unknown,
  options: z.output<typeof LocomoImportOptions>,
): Promise<BenchmarkImportResult> {
  assertValidText(json, "the LoCoMo file");
  const parsed = LocomoFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // Quote the offending value, not only its path: "[0].qa[3].category: … (got 7)".
    const value = gotValue(json, issue.path);
    throw new AppError(
      "invalid_input",
      `not a LoCoMo file, nothing was imported: ${formatPath(issue.path) || "(root)"}: ${issue.message}${value}`,
      { fieldErrors: { [formatPath(issue.path) || "body"]: [issue.message] } },
    );
  }
  const conversations = parsed.data.map(readLocomoSample);
  const bundles = conversations.map((conv) =>
    locomoBundle(conv, { prefix: options.prefix, summaries: options.summaries ?? null, minF1: options.minF1 }),
  );
  const ids = bundles.map((b) => b.bank.id);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice) throw new AppError("invalid_input", `two conversations would both be bank ${twice}; nothing was imported`);
  for (const bundle of bundles) {
    validateBundle(bundle);
    if (!options.replace && (await getBank(db, bundle.bank.id))) {
      throw new AppError(
        "conflict",
        `bank ${bundle.bank.id} already exists; import with replace (--replace) to overwrite it, or another prefix. Nothing was imported.`,
      );
    }
  }
  const banks: ImportResult[] = [];
  for (const bundle of bundles) banks.push(await importBundle(db, bundle, { replace: options.replace }));
  const repairs = conversations.flatMap((conv) =>
    [...conv.repairs, ...unsuitedQuestions(conv)].map(
      (r): LocomoRepair => ({ ...r, path: `${conv.sampleId} ${r.path}` }),
    ),
  );
  return {
    benchmark: "locomo",
    banks: banks.map((b, i) => ({ ...b, suite: bundles[i]!.suites[0]?.name ?? null })),
    repairs: {
      count: repairs.length,
      byAction: {
        split: repairs.filter((r) => r.action === "split").length,
        fixed: repairs.filter((r) => r.action === "fixed").length,
        dropped: repairs.filter((r) => r.action === "dropped").length,
      },
      examples: repairs.slice(0, REPAIR_EXAMPLES),
    },
  };
}
