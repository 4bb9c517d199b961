import { type ParseArgsConfig, parseArgs } from "node:util";
import { z } from "zod";
import { AppError } from "@/lib/contracts/errors";
import { LIMITS, underLimit } from "@/lib/contracts/fields";
import { Budget, RunMode, Scope } from "@/lib/reflect";
import { COMMAND_HELP } from "./help";

/** A bad command line: `invalid_input`, printed as one line with exit code 2. */
export function usageError(message: string): AppError<"invalid_input"> {
  return new AppError("invalid_input", message);
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid arguments";
  const flag = issue.path.join(".");
  const path = flag && flag !== "question" ? `--${flag}: ` : "";
  return `${path}${issue.message}`;
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw usageError(firstIssue(parsed.error));
  return parsed.data;
}

/** Flags and positionals of a command line (strict: an unknown flag is a usage error). */
export function parseFlags<O extends NonNullable<ParseArgsConfig["options"]>>(argv: string[], options: O) {
  return parse(argv, options);
}

function parse<O extends NonNullable<ParseArgsConfig["options"]>>(argv: string[], options: O) {
  const parsed = (() => {
    try {
      return parseArgs({ args: argv, options, allowPositionals: true, strict: true, tokens: true });
    } catch (err) {
      throw usageError((err as Error).message.split("\n")[0] ?? "invalid arguments");
    }
  })();
  refuseRepeatedFlags(parsed.tokens, options);
  return { values: parsed.values, positionals: parsed.positionals };
}

/**
 * A flag given twice (`--out - --out f.json`) is refused: Node keeps the last one silently, and
 * which one a script meant is a guess. Flags declared `multiple` may repeat.
 */
function refuseRepeatedFlags(
  tokens: readonly { kind: string; name?: string }[],
  options: NonNullable<ParseArgsConfig["options"]>,
): void {
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== "option" || token.name === undefined) continue;
    if (options[token.name]?.multiple) continue;
    if (seen.has(token.name)) throw usageError(`--${token.name} was given twice; give it once`);
    seen.add(token.name);
  }
}

/** `--out`: a file name, or `-` for stdout; an empty name is refused (it names no file). */
export const OutFile = z.string().min(1, "--out needs a file name, or - for stdout").optional();

/** A character that shows: a letter, digit, punctuation mark or symbol. */
const VISIBLE = /[\p{L}\p{N}\p{P}\p{S}]/u;

export const ReflectArgs = z.object({
  bank: z.string({ error: "--bank is required" }).min(1, "--bank is required"),
  skill: z.string().min(1).optional(),
  budget: Budget.optional(),
  mode: RunMode.default("synthesize"),
  scope: Scope.optional(),
  "anchor-every": z.coerce.number().int().min(1).max(50).optional(),
  json: z.boolean().default(false),
  question: z
    .string({ error: "a question is required" })
    .trim()
    .min(1, "the question must not be empty")
    .max(LIMITS.questionChars, `oversize question: ${underLimit("question", LIMITS.questionChars)}`)
    // Only control or invisible characters (zero-width space, …) is no question either.
    .refine((q) => VISIBLE.test(q), "the question must not be empty"),
});
export type ReflectArgs = z.output<typeof ReflectArgs>;

export function parseReflectArgs(argv: string[]): ReflectArgs {
  const { values, positionals } = parse(argv, {
    bank: { type: "string" },
    skill: { type: "string" },
    budget: { type: "string" },
    mode: { type: "string" },
    scope: { type: "string" },
    "anchor-every": { type: "string" },
    json: { type: "boolean" },
  });
  if (positionals.length > 1) throw usageError('put the question in quotes: reflect --bank demo "What…?"');
  return parseWith(ReflectArgs, { ...values, question: positionals[0] });
}

const HindsightImportArgs = z.object({
  from: z.literal("hindsight", { error: '--from takes one source: "hindsight"' }),
  url: z.string({ error: "the Hindsight base URL is required: import --from hindsight <url> --bank <id>" }).min(1),
  bank: z.string({ error: "--bank is required (the bank's id on the Hindsight server)" }).min(1).max(200),
  as: z.string().min(1).optional(),
  "api-key": z.string().min(1).optional(),
  "timeout-ms": z.coerce.number().int().min(1).max(600_000).optional(),
  replace: z.boolean().default(false),
  json: z.boolean().default(false),
});
export type HindsightImportArgs = z.output<typeof HindsightImportArgs>;

/** `import --from hindsight <url> --bank <id> [--as <id>] [--api-key <key>] [--timeout-ms <n>] [--replace] [--json]`. */
export function parseHindsightImportArgs(argv: string[]): HindsightImportArgs {
  const { values, positionals } = parse(argv, {
    from: { type: "string" },
    bank: { type: "string" },
    as: { type: "string" },
    "api-key": { type: "string" },
    "timeout-ms": { type: "string" },
    replace: { type: "boolean" },
    json: { type: "boolean" },
  });
  if (positionals.length > 1) throw usageError(`usage: ${COMMAND_HELP.import.usage}`);
  return parseWith(HindsightImportArgs, { ...values, url: positionals[0] });
}

const AskHindsightArgs = z.object({
  hindsight: z.string().min(1),
  bank: z.string({ error: "--bank is required (the bank's id on the Hindsight server)" }).min(1).max(200),
  as: z.string().min(1).max(200).optional(),
  budget: Budget.optional(),
  "api-key": z.string().min(1).optional(),
  "timeout-ms": z.coerce.number().int().min(1).max(600_000).optional(),
  json: z.boolean().default(false),
  question: ReflectArgs.shape.question,
});
export type AskHindsightArgs = z.output<typeof AskHindsightArgs>;

/** `reflect --hindsight <url> --bank <id> [--as <id>] [--budget …] [--api-key …] [--timeout-ms n] [--json] "<question>"`. */
export function parseAskHindsightArgs(argv: string[]): AskHindsightArgs {
  const { values, positionals } = parse(argv, {
    hindsight: { type: "string" },
    bank: { type: "string" },
    as: { type: "string" },
    budget: { type: "string" },
    "api-key": { type: "string" },
    "timeout-ms": { type: "string" },
    json: { type: "boolean" },
  });
  if (positionals.length > 1)
    throw usageError('put the question in quotes: reflect --hindsight <url> --bank b "What…?"');
  return parseWith(AskHindsightArgs, { ...values, question: positionals[0] });
}

/** True when `reflect` asks a Hindsight server (`--hindsight`). */
export const isAskHindsight = (argv: string[]) => argv.some((a) => a === "--hindsight" || a.startsWith("--hindsight="));

/** True when the command line is an import from a server (`--from`), not from a file. */
export const isImportFrom = (argv: string[]) => argv.some((a) => a === "--from" || a.startsWith("--from="));

export function parseImportArgs(argv: string[]): { file: string; replace: boolean } {
  const { values, positionals } = parse(argv, { replace: { type: "boolean" } });
  const file = positionals[0];
  if (!file || positionals.length > 1) throw usageError(`usage: ${COMMAND_HELP.import.usage}`);
  return { file, replace: values.replace === true };
}

export function parseExportArgs(argv: string[]): { bank: string; out?: string } {
  const { values, positionals } = parse(argv, { bank: { type: "string" }, out: { type: "string" } });
  if (positionals.length) throw usageError(`usage: ${COMMAND_HELP.export.usage}`);
  return parseWith(z.object({ bank: z.string({ error: "--bank is required" }).min(1), out: OutFile }), values);
}

const MODEL_SUBCOMMAND = 'the model command takes one subcommand: "check"';
const ModelArgs = z.object({
  positionals: z.tuple([z.literal("check", { error: MODEL_SUBCOMMAND })], { error: MODEL_SUBCOMMAND }),
  json: z.boolean().default(false),
});

/** `model check [--json]`. */
export function parseModelArgs(argv: string[]): z.output<typeof ModelArgs> {
  const { values, positionals } = parse(argv, { json: { type: "boolean" } });
  return parseWith(ModelArgs, { positionals, json: values.json });
}
