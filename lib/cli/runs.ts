/**
 * `npm run cli -- runs export <id> [--format otlp|json] [--out file]`: a stored run as a file;
 * `runs prune` and `runs retention`: run retention (runs-prune.ts).
 */
import { z } from "zod";
import { getCliDb } from "@/lib/server/runtime/db";
import { getRunOtlp } from "@/lib/server/services/otlp-push";
import { runExport } from "@/lib/server/services/runs";
import { OutFile, parseFlags, parseWith, usageError } from "./args";
import { COMMAND_HELP } from "./help";
import { type CliIo, writeOutput } from "./io";
import { runsPruneCommand, runsRetentionCommand } from "./runs-prune";

const RUNS_USAGE = `usage: ${COMMAND_HELP.runs.usage}`;

const ExportArgs = z.object({
  id: z.string({ error: RUNS_USAGE }).min(1, RUNS_USAGE),
  format: z.enum(["otlp", "json"], { error: "--format must be otlp or json" }).default("json"),
  out: OutFile,
});

function parseExportArgs(argv: string[]): z.output<typeof ExportArgs> {
  const parsed = parseFlags(argv, { format: { type: "string" }, out: { type: "string" } });
  if (parsed.positionals.length > 1) throw usageError(RUNS_USAGE);
  return parseWith(ExportArgs, { ...parsed.values, id: parsed.positionals[0] });
}

export async function runsCommand(argv: string[], io: CliIo): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === "prune") return runsPruneCommand(rest);
  if (sub === "retention") return runsRetentionCommand(rest);
  if (sub !== "export") throw usageError(RUNS_USAGE);
  const args = parseExportArgs(rest);
  const db = await getCliDb();
  const exported = await runExport(db, args.id);
  if (!exported) throw usageError(`unknown run "${args.id}"`);
  const body = args.format === "otlp" ? await getRunOtlp(db, args.id) : exported;
  writeOutput(io, args.out, `${JSON.stringify(body, null, 2)}\n`);
}
