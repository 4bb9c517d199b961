/** `cli model check [--json]`: what the configured model server can do (lib/llm/model-check.ts). */
import { checkModel, formatModelCheck, type ModelConfig, ModelConfigError, readModelConfig } from "@/lib/llm";
import { parseModelArgs, usageError } from "./args";
import { type CliIo, say } from "./io";
import { terminalSafe } from "./terminal";

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
export async function modelCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseModelArgs(argv);
  const report = await checkModel(modelConfig());
  say(io, args.json ? JSON.stringify(report) : terminalSafe(formatModelCheck(report)));
  return report.exitCode;
}
