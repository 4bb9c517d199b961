/** `import`, `export` and `reflect`: a bank bundle in or out, one reflect run (see main.ts). */
import { constants, createReadStream, readFileSync, writeFileSync } from "node:fs";
import { access } from "node:fs/promises";
import { AppError, isAppError } from "@/lib/contracts/errors";
import { decodeUtf8 } from "@/lib/contracts/text";
import { getCliDb } from "@/lib/server/runtime/db";
import { embedAfterImport } from "@/lib/server/runtime/embeddings";
import { exportBundle, importBundle, importBundleLines } from "@/lib/server/services/bundle-io";
import { importFromHindsight } from "@/lib/server/services/hindsight-import";
import { askHindsight } from "@/lib/server/services/hindsight-reflect";
import { runEvents, startRun } from "@/lib/server/services/runs";
import { plural } from "@/lib/timeline/format";
import {
  isAskHindsight,
  isImportFrom,
  parseAskHindsightArgs,
  parseExportArgs,
  parseHindsightImportArgs,
  parseImportArgs,
  parseReflectArgs,
  usageError,
} from "./args";
import { formatEmbedCounts } from "./embed";
import { type CliIo, say } from "./io";
import { formatReflectHuman, toReflectJson } from "./reflect-output";
import { terminalSafe } from "./terminal";

/** A JSON-lines bundle, read line by line: never held whole in memory (lib/server/services/bundle-io.ts `importBundleLines`). */
async function importLines(file: string, replace: boolean) {
  try {
    await access(file, constants.R_OK);
  } catch (err) {
    throw usageError(`cannot read ${file}: ${(err as Error).message.split("\n")[0]}`);
  }
  return importBundleLines(await getCliDb(), readLines(file), { replace });
}

/** No record of a bundle comes near this; a longer line is refused rather than held in memory. */
const MAX_LINE_CHARS = 16 * 1_048_576;

/** The file's lines, decoded as strict UTF-8 chunk by chunk (bytes that are not UTF-8 fail the import). */
async function* readLines(file: string): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let rest = "";
  const decode = (chunk?: Buffer) => {
    try {
      return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      throw new AppError("invalid_text", `${file} is not UTF-8 text; nothing was imported.`);
    }
  };
  for await (const chunk of createReadStream(file)) {
    const text = decode(chunk as Buffer);
    let start = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
      const line = rest + text.slice(start, nl);
      rest = "";
      start = nl + 1;
      yield line.endsWith("\r") ? line.slice(0, -1) : line;
    }
    rest += text.slice(start);
    if (rest.length > MAX_LINE_CHARS) {
      throw new AppError(
        "invalid_input",
        `${file}: a line is longer than ${MAX_LINE_CHARS / 1_048_576} Mi characters; nothing was imported.`,
      );
    }
  }
  rest += decode();
  if (rest) yield rest;
}

/** `import --from hindsight …`: the bank read from a Hindsight server (lib/server/services/hindsight-import.ts). */
async function importFromHindsightCommand(argv: string[], io: CliIo) {
  const args = parseHindsightImportArgs(argv);
  const db = await getCliDb();
  const result = await importFromHindsight(db, {
    baseUrl: args.url,
    bankId: args.bank,
    localBankId: args.as,
    apiKey: args["api-key"] ?? process.env.HINDSIGHT_API_KEY,
    replace: args.replace,
    timeoutMs: args["timeout-ms"],
  });
  const embedded = await embedAfterImport(db, result.bankId);
  if (args.json) {
    say(io, JSON.stringify(result));
    return;
  }
  const c = result.counts;
  say(
    io,
    terminalSafe(
      `imported bank ${result.bankId} from Hindsight ${result.source.baseUrl} bank ${result.source.bankId}: ${plural(c.facts, "fact")}, ${plural(c.observations, "observation")}, ${plural(c.mentalModels, "mental model")}, ${plural(c.skills, "skill")} (${plural(result.requests, "request")})`,
    ),
  );
  for (const s of result.skipped) say(io, terminalSafe(`  not carried: ${s.count} ${s.kind}: ${s.reason}`));
  if (embedded) say(io, `embedded ${formatEmbedCounts(embedded)}`);
}

export async function importCommand(argv: string[], io: CliIo) {
  if (isImportFrom(argv)) return importFromHindsightCommand(argv, io);
  const { file, replace } = parseImportArgs(argv);
  let result: Awaited<ReturnType<typeof importBundle>>;
  if (file.endsWith(".jsonl")) result = await importLines(file, replace);
  else {
    let json: unknown;
    try {
      json = JSON.parse(decodeUtf8(readFileSync(file), file));
    } catch (err) {
      if (isAppError(err)) throw err;
      throw usageError(`cannot read ${file}: ${(err as Error).message.split("\n")[0]}`);
    }
    result = await importBundle(await getCliDb(), json, { replace });
  }
  const db = await getCliDb();
  const c = result.counts;
  say(
    io,
    `imported bank ${result.bankId}: ${plural(c.facts, "fact")}, ${plural(c.observations, "observation")}, ${plural(c.mentalModels, "mental model")}, ${plural(c.skills, "skill")}, ${plural(c.suites, "suite")}`,
  );
  const embedded = await embedAfterImport(db, result.bankId);
  if (embedded) say(io, `embedded ${formatEmbedCounts(embedded)}`);
}

export async function exportCommand(argv: string[], io: CliIo) {
  const { bank, out } = parseExportArgs(argv);
  const db = await getCliDb();
  const bundle = await exportBundle(db, bank);
  if (!bundle) throw usageError(`unknown bank "${bank}"`);
  const text = `${JSON.stringify(bundle, null, 2)}\n`;
  if (out) writeFileSync(out, text);
  else io.stdout.write(text);
}

/** `reflect --hindsight …`: Hindsight's answer stored as an imported run (lib/server/services/hindsight-reflect.ts). */
async function askHindsightCommand(argv: string[], io: CliIo) {
  const args = parseAskHindsightArgs(argv);
  const result = await askHindsight(await getCliDb(), {
    baseUrl: args.hindsight,
    bankId: args.bank,
    localBankId: args.as,
    apiKey: args["api-key"] ?? process.env.HINDSIGHT_API_KEY,
    question: args.question,
    budget: args.budget,
    timeoutMs: args["timeout-ms"],
  });
  if (args.json) {
    say(io, JSON.stringify(result));
    return;
  }
  say(
    io,
    terminalSafe(
      `Run ${result.runId}: Hindsight's answer (imported run in bank ${result.bankId}, ${plural(result.toolCalls, "tool call")}, ${plural(result.citations, "citation")})\n\n${result.answer}\n\nTimeline: /runs/${result.runId} · compare with a run here: /runs/compare?a=<run-id>&b=${result.runId}`,
    ),
  );
}

export async function reflectCommand(argv: string[], io: CliIo) {
  if (isAskHindsight(argv)) return askHindsightCommand(argv, io);
  const args = parseReflectArgs(argv);
  const db = await getCliDb();
  const { runId, finished } = await startRun(db, {
    bankId: args.bank,
    skill: args.skill,
    budget: args.budget,
    mode: args.mode,
    scope: args.scope,
    question: args.question,
    anchorEvery: args["anchor-every"],
  });
  const result = await finished;
  const events = await runEvents(db, runId);
  say(
    io,
    args.json
      ? JSON.stringify(toReflectJson(runId, result, events))
      : terminalSafe(formatReflectHuman(runId, result, events)),
  );
}
