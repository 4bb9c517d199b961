/** `cli model check [--json]`: what the configured model server can do (lib/llm/model-check.ts). */
import { parseArgs } from "node:util";
import { z } from "zod";
import { checkModel, formatModelCheck, type ModelConfig, ModelConfigError, readModelConfig } from "@/lib/llm";
import { parseWith, usageError } from "./args";

const ModelArgs = z.object({
  positionals: z.tuple([z.literal("check", { error: 'the model command takes one subcommand: "check"' })], {
    error: 'the model command takes one subcommand: "check"',
  }),
  json: z.boolean().default(false),
});

function parse(argv: string[]) {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { json: { type: "boolean" } },
      allowPositionals: true,
      strict: true,
    });
    return { positionals, json: values.json };
  } catch (err) {
    throw usageError((err as Error).message.split("\n")[0] ?? "invalid arguments");
  }
}

function modelConfig(): ModelConfig {
  try {
    return readModelConfig(process.env);
  } catch (err) {
    // A bad setting is bad input: exit 2, the variable named.
    if (err instanceof ModelConfigError) throw usageError(err.message);
    throw err;
  }
}

/** Prints the report; exits 1 when the server cannot call tools in any form. */
export async function modelCommand(argv: string[]): Promise<number> {
  const args = parseWith(ModelArgs, parse(argv));
  const report = await checkModel(modelConfig());
  console.log(args.json ? JSON.stringify(report) : formatModelCheck(report));
  return report.exitCode;
}
