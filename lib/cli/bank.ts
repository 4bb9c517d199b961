/** `import` and `export`: a bank bundle in or out (see main.ts); `reflect` is in reflect.ts. */
import { constants, createReadStream } from "node:fs";
import { access } from "node:fs/promises";
import { isAppError } from "@/lib/contracts/errors";
import { decodeUtf8 } from "@/lib/contracts/text";
import { getCliDb } from "@/lib/server/runtime/db";
import { embedAfterImport } from "@/lib/server/runtime/embeddings";
import { exportBundle, importBundle } from "@/lib/server/services/bundle-io";
import { importStagedLines, readLines } from "@/lib/server/services/bundle-lines";
import { importFromHindsight } from "@/lib/server/services/hindsight-import";
import { askHindsight } from "@/lib/server/services/hindsight-reflect";
import { plural } from "@/lib/timeline/format";
import {
  isImportFrom,
  parseAskHindsightArgs,
  parseExportArgs,
  parseHindsightImportArgs,
  parseImportArgs,
  usageError,
} from "./args";
import { formatEmbedCounts } from "./embed";
import { type CliIo, inputName, readInput, STDIO, say, stdinChunks, writeOutput } from "./io";
import { terminalSafe } from "./terminal";

/** A JSON-lines bundle, read line by line: never held whole in memory (lib/server/services/bundle-io.ts `importBundleLines`). */
async function importLines(file: string, replace: boolean) {
  try {
    await access(file, constants.R_OK);
  } catch (err) {
    throw usageError(`cannot read ${file}: ${(err as Error).message.split("\n")[0]}`);
  }
  return importStaged(readLines(createReadStream(file), file), replace);
}

/** A JSON-lines import, staged in chunks (lib/server/services/bundle-lines.ts): a file's or stdin's lines. */
async function importStaged(lines: AsyncIterable<string>, replace: boolean) {
  // Ctrl-C or a TERM stops it between two chunks and removes what it staged.
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    return await importStagedLines(await getCliDb(), lines, { replace, owner: "cli", signal: stop.signal });
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
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

/** True for a JSON-lines header line: `{"version":…,"bank":…}` and nothing else. */
function isLinesHeader(line: string): boolean {
  try {
    const json = JSON.parse(line);
    if (!json || typeof json !== "object" || Array.isArray(json)) return false;
    const keys = Object.keys(json);
    return keys.includes("bank") && keys.every((k) => k === "version" || k === "bank");
  } catch {
    return false;
  }
}

/**
 * `import -`: a bundle on stdin. Its first line tells the form: a JSON-lines header
 * (`{"version":1,"bank":{…}}`) is read line by line as a .jsonl file is; anything else is one JSON
 * document (what `export` prints).
 */
async function importStdin(io: CliIo, replace: boolean) {
  const lines = readLines(stdinChunks(io), "stdin");
  // Read by hand: leaving a for-await loop early would close the generator and lose the rest.
  const head: string[] = [];
  for (let next = await lines.next(); !next.done; next = await lines.next()) {
    head.push(next.value);
    if (next.value.trim()) break;
  }
  if (!head.some((line) => line.trim())) throw usageError("stdin is empty: pipe a bundle in (nothing was imported)");
  if (isLinesHeader(head[head.length - 1]!)) {
    async function* all() {
      yield* head;
      yield* lines;
    }
    return importStaged(all(), replace);
  }
  for await (const line of lines) head.push(line);
  let json: unknown;
  try {
    json = JSON.parse(head.join("\n"));
  } catch (err) {
    throw usageError(`cannot read stdin: ${(err as Error).message.split("\n")[0]}`);
  }
  return importBundle(await getCliDb(), json, { replace });
}

export async function importCommand(argv: string[], io: CliIo) {
  if (isImportFrom(argv)) return importFromHindsightCommand(argv, io);
  const { file, replace } = parseImportArgs(argv);
  let result: Awaited<ReturnType<typeof importBundle>>;
  if (file === STDIO) result = await importStdin(io, replace);
  else if (file.endsWith(".jsonl")) result = await importLines(file, replace);
  else {
    let json: unknown;
    try {
      json = JSON.parse(decodeUtf8(await readInput(io, file), file));
    } catch (err) {
      if (isAppError(err)) throw err;
      throw usageError(`cannot read ${inputName(file)}: ${(err as Error).message.split("\n")[0]}`);
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
  writeOutput(io, out, `${JSON.stringify(bundle, null, 2)}\n`);
}

/** `reflect --hindsight …`: Hindsight's answer stored as an imported run (lib/server/services/hindsight-reflect.ts). */
export async function askHindsightCommand(argv: string[], io: CliIo) {
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
