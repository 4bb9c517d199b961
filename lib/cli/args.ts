import { type ParseArgsConfig, parseArgs } from "node:util";
import { z } from "zod";
import { Budget, RunMode, Scope } from "@/lib/reflect";

/** A bad command line: printed as one line, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
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
  if (!parsed.success) throw new UsageError(firstIssue(parsed.error));
  return parsed.data;
}

function parse<O extends NonNullable<ParseArgsConfig["options"]>>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message.split("\n")[0] ?? "invalid arguments");
  }
}

export const ReflectArgs = z.object({
  bank: z.string({ error: "--bank is required" }).min(1, "--bank is required"),
  skill: z.string().min(1).optional(),
  budget: Budget.optional(),
  mode: RunMode.default("synthesize"),
  scope: Scope.optional(),
  "anchor-every": z.coerce.number().int().min(1).max(50).optional(),
  json: z.boolean().default(false),
  question: z.string({ error: "a question is required" }).trim().min(1, "the question must not be empty"),
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
  if (positionals.length > 1) throw new UsageError('put the question in quotes: reflect --bank demo "What…?"');
  return parseWith(ReflectArgs, { ...values, question: positionals[0] });
}

export function parseImportArgs(argv: string[]): { file: string; replace: boolean } {
  const { values, positionals } = parse(argv, { replace: { type: "boolean" } });
  const file = positionals[0];
  if (!file || positionals.length > 1) throw new UsageError("usage: import <bundle.json> [--replace]");
  return { file, replace: values.replace === true };
}

export function parseExportArgs(argv: string[]): { bank: string; out?: string } {
  const { values, positionals } = parse(argv, { bank: { type: "string" }, out: { type: "string" } });
  if (positionals.length) throw new UsageError("usage: export --bank <id> [--out file.json]");
  return parseWith(
    z.object({ bank: z.string({ error: "--bank is required" }).min(1), out: z.string().optional() }),
    values,
  );
}
