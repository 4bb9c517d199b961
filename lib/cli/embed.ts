/** `cli embed [--bank id]`: computes the embeddings that are missing (one bank or all banks). */
import { getCliDb } from "@/lib/server/runtime/db";
import { getEmbedder } from "@/lib/server/runtime/embeddings";
import { findBank } from "@/lib/server/services/banks";
import { type BackfillCounts, embedMissing } from "@/lib/server/services/embeddings";
import { parseFlags, usageError } from "./args";
import { type CliIo, say } from "./io";

export function formatEmbedCounts(c: BackfillCounts): string {
  return `${c.facts} facts, ${c.observations} observations, ${c.mental_models} mental models`;
}

export async function embedCommand(argv: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseFlags(argv, { bank: { type: "string" } });
  if (positionals.length > 0) throw usageError(`unexpected argument "${positionals[0]}"`);
  const { bank } = values;
  const embedder = getEmbedder();
  if (!embedder) {
    throw usageError("embeddings are off: set REFLECT_EMBEDDINGS=openai (and OPENAI_API_KEY) to compute them");
  }
  const db = await getCliDb();
  if (bank !== undefined && !(await findBank(db, bank))) throw usageError(`unknown bank "${bank}"`);
  const counts = await embedMissing(db, embedder, bank);
  say(io, `embedded ${formatEmbedCounts(counts)}${bank ? ` in bank ${bank}` : ""} (${embedder.dimensions} dimensions)`);
}
