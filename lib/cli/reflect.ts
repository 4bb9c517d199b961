/** `reflect`: one reflect run on a bank, printed as a summary or one JSON object (see main.ts). */
import { LIMITS } from "@/lib/contracts/fields";
import { assertValidText, decodeUtf8 } from "@/lib/contracts/text";
import { getCliDb } from "@/lib/server/runtime/db";
import { runEvents, startRun } from "@/lib/server/services/runs";
import { isAskHindsight, parseReflectArgs, parseWith, ReflectArgs, usageError } from "./args";
import { type CliIo, readInput, STDIO, say } from "./io";
import { formatReflectHuman, toReflectJson } from "./reflect-output";
import { terminalSafe } from "./terminal";

/** `reflect … -`: the question is stdin's text, checked like any question (an empty one starts no run). */
async function withStdinQuestion(io: CliIo, args: ReflectArgs): Promise<ReflectArgs> {
  if (args.question !== STDIO) return args;
  // A question is at most LIMITS.questionChars characters: more bytes than 4 per character is oversize unread.
  // Checked as the arguments are (main.ts): a NUL would be cut off where SQLite stores the question.
  const text = assertValidText(decodeUtf8(await readInput(io, STDIO, LIMITS.questionChars * 4 + 64), "stdin"), "stdin");
  if (!text.trim()) throw usageError("stdin is empty: pipe the question in (no run was started)");
  return parseWith(ReflectArgs, { ...args, question: text });
}

export async function reflectCommand(argv: string[], io: CliIo) {
  // `reflect --hindsight …` asks a Hindsight server instead (bank.ts askHindsightCommand).
  if (isAskHindsight(argv)) return (await import("./bank")).askHindsightCommand(argv, io);
  const args = await withStdinQuestion(io, parseReflectArgs(argv));
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
