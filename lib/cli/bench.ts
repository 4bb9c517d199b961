/**
 * `bench import locomo <file>`: a public benchmark as banks and suites (lib/server/services/benchmarks.ts).
 * Prints each bank and suite made and every repair of the data (or one JSON object with --json).
 */
import { LocomoImportOptions } from "@/lib/contracts/benchmarks";
import { isAppError } from "@/lib/contracts/errors";
import { decodeUtf8 } from "@/lib/contracts/text";
import { getCliDb } from "@/lib/server/runtime/db";
import { importLocomo } from "@/lib/server/services/benchmarks";
import { plural } from "@/lib/timeline/format";
import { parseFlags, parseWith, usageError } from "./args";
import { COMMAND_HELP } from "./help";
import { type CliIo, inputName, readInput, STDIO, say } from "./io";
import { terminalSafe } from "./terminal";

export async function benchCommand(argv: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseFlags(argv, {
    prefix: { type: "string" },
    summaries: { type: "string" },
    replace: { type: "boolean" },
    "min-f1": { type: "string" },
    json: { type: "boolean" },
  });
  const [action, benchmark, file, ...extra] = positionals;
  if (action !== "import" || benchmark !== "locomo" || !file || extra.length > 0) {
    throw usageError(`usage: ${COMMAND_HELP.bench.usage}`);
  }
  const rawMinF1 = values["min-f1"];
  const minF1 = rawMinF1 === undefined ? undefined : Number(rawMinF1);
  if (minF1 !== undefined && (rawMinF1!.trim() === "" || !(minF1 >= 0 && minF1 <= 1))) {
    throw usageError(`--min-f1: a number from 0 to 1 (got "${rawMinF1}")`);
  }
  const options = parseWith(LocomoImportOptions, {
    prefix: values.prefix,
    summaries: values.summaries,
    replace: values.replace === true,
    minF1,
  });
  let json: unknown;
  try {
    const text = decodeUtf8(await readInput(io, file), inputName(file));
    if (file === STDIO && !text.trim())
      throw usageError("stdin is empty: pipe the LoCoMo JSON in (nothing was imported)");
    json = JSON.parse(text);
  } catch (err) {
    if (isAppError(err)) throw err;
    throw usageError(`cannot read ${inputName(file)}: ${(err as Error).message.split("\n")[0]}`);
  }
  const result = await importLocomo(await getCliDb(), json, options);
  if (values.json) {
    say(io, JSON.stringify(result));
    return;
  }
  for (const b of result.banks) {
    say(
      io,
      `imported bank ${b.bankId}: ${plural(b.counts.facts, "fact")}, ${plural(b.counts.observations, "observation")}, ${plural(b.counts.mentalModels, "mental model")}; suite ${b.suite}`,
    );
  }
  const r = result.repairs;
  say(
    io,
    r.count === 0
      ? "no data repairs"
      : `${plural(r.count, "data repair")}: ${r.byAction.split} split, ${r.byAction.fixed} fixed, ${r.byAction.dropped} dropped`,
  );
  for (const e of r.examples) say(io, terminalSafe(`  ${e.path}: "${e.value}" ${e.action} (${e.detail})`));
  if (r.count > r.examples.length) say(io, `  … and ${r.count - r.examples.length} more (--json lists the first 20)`);
  const first = result.banks[0];
  if (first?.suite) say(io, `next: npm run cli -- experiment run --bank ${first.bankId} --suite ${first.suite}`);
}
