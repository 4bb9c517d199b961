/**
 * `npm run cli -- <command>`: import / export bank bundles, run a reflect. Bad input prints one
 * line to stderr and exits 2; a finished run of any status exits 0 (experiment run: 1 when the gate
 * fails, 3 when the experiment did not complete). `--help` / `-h` / `help`
 * print usage to stdout and exit 0. Traces of the runs it finished reach the configured OTLP
 * collector before the process exits.
 */
import { constants, createReadStream, readFileSync, writeFileSync } from "node:fs";
import { access } from "node:fs/promises";
import { exportBundle, importBundle, importBundleLines } from "@/db/bundle-io";
import { getRunEvents } from "@/db/runs";
import { AppError, isAppError } from "@/lib/contracts/errors";
import { assertValidText, decodeUtf8 } from "@/lib/contracts/text";
import { withoutAdmission } from "@/lib/server/admission";
import { getCliDb } from "@/lib/server/db";
import { embedAfterImport } from "@/lib/server/embeddings";
import { cliError } from "@/lib/server/errors";
import { flushTracePushes } from "@/lib/server/otlp-push";
import { startRun } from "@/lib/server/runs";
import { plural } from "@/lib/timeline/format";
import { parseExportArgs, parseImportArgs, parseReflectArgs, usageError } from "./args";
import { benchCommand } from "./bench";
import { embedCommand, formatEmbedCounts } from "./embed";
import { experimentCommand, suiteCommand } from "./experiments";
import { type CommandName, commandHelp, isCommandName, overviewHelp, wantsHelp } from "./help";
import { mcpCommand } from "./mcp";
import { modelCommand } from "./model";
import { formatReflectHuman, toReflectJson } from "./reflect-output";
import { runsCommand } from "./runs";
import { terminalSafe } from "./terminal";

/** A JSON-lines bundle, read line by line: never held whole in memory (db/bundle-io.ts `importBundleLines`). */
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

async function importCommand(argv: string[]) {
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
  console.log(
    `imported bank ${result.bankId}: ${plural(c.facts, "fact")}, ${plural(c.observations, "observation")}, ${plural(c.mentalModels, "mental model")}, ${plural(c.skills, "skill")}, ${plural(c.suites, "suite")}`,
  );
  const embedded = await embedAfterImport(db, result.bankId);
  if (embedded) console.log(`embedded ${formatEmbedCounts(embedded)}`);
}

async function exportCommand(argv: string[]) {
  const { bank, out } = parseExportArgs(argv);
  const db = await getCliDb();
  const bundle = await exportBundle(db, bank);
  if (!bundle) throw usageError(`unknown bank "${bank}"`);
  const text = `${JSON.stringify(bundle, null, 2)}\n`;
  if (out) writeFileSync(out, text);
  else process.stdout.write(text);
}

async function reflectCommand(argv: string[]) {
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
  const events = await getRunEvents(db, runId);
  console.log(
    args.json
      ? JSON.stringify(toReflectJson(runId, result, events))
      : terminalSafe(formatReflectHuman(runId, result, events)),
  );
}

/** A command resolves to its exit code when it has one other than 0 (a number), else to nothing. */
const COMMANDS: Record<CommandName, (argv: string[]) => Promise<unknown>> = {
  import: importCommand,
  export: exportCommand,
  reflect: reflectCommand,
  runs: runsCommand,
  mcp: mcpCommand,
  embed: embedCommand,
  model: modelCommand,
  suite: suiteCommand,
  experiment: experimentCommand,
  bench: benchCommand,
};

async function main(argv: string[]): Promise<number> {
  // This process serves nobody else: its runs take no server admission slot (lib/server/admission.ts).
  withoutAdmission();
  const [command, ...rest] = argv;
  if (command === undefined) {
    process.stderr.write(overviewHelp());
    return 2;
  }
  if (command === "--help" || command === "-h" || command === "help") {
    const topic = rest[0];
    if (topic !== undefined && !isCommandName(topic)) {
      console.error(`error: unknown command "${topic}"; run \`cli --help\` for the list`);
      return 2;
    }
    process.stdout.write(topic ? commandHelp(topic) : overviewHelp());
    return 0;
  }
  if (!isCommandName(command)) {
    console.error(`error: unknown command "${command}"; run \`cli --help\` for the list`);
    return 2;
  }
  if (wantsHelp(rest)) {
    process.stdout.write(commandHelp(command));
    return 0;
  }
  try {
    assertValidText(rest, "the arguments");
    const code = await COMMANDS[command](rest);
    return typeof code === "number" ? code : 0;
  } catch (err) {
    const { lines, exitCode } = cliError(err);
    for (const line of lines) console.error(terminalSafe(line));
    return exitCode;
  } finally {
    // A run finished here is pushed to the collector before the process exits (failures are logged).
    await flushTracePushes();
  }
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
