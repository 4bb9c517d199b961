/** Reflect and recall for the API: thin layers over the run service and the memory store. */
import type { z } from "zod";
import type { Db } from "@/db/client";
import { createMemoryStore } from "@/db/memory-store";
import { getSkill } from "@/db/skills";
import type { ScopeValue } from "@/lib/reflect/domain";
import { ServiceError } from "../action";
import { startRun } from "../runs";
import { RecallResult, type ReflectAccepted, type ReflectBody, type ReflectFinished, runLinks } from "./schemas";

type Reflected =
  | { status: 202; body: z.output<typeof ReflectAccepted> }
  | { status: 200; body: z.output<typeof ReflectFinished> };

export async function reflect(db: Db, bankId: string, body: z.output<typeof ReflectBody>): Promise<Reflected> {
  if (body.skill && !(await getSkill(db, { bankId, name: body.skill }))) {
    throw new ServiceError("invalid_input", `unknown skill "${body.skill}" in bank ${bankId}`, {
      skill: ["unknown skill"],
    });
  }
  const { wait, ...input } = body;
  const { runId, finished } = await startRun(db, { ...input, bankId });
  const links = runLinks(runId);
  if (!wait) return { status: 202, body: { runId, status: "running", links } };
  const r = await finished;
  return {
    status: 200,
    body: {
      id: runId,
      status: r.status,
      answer: r.answer,
      citations: r.citations,
      dropped: r.dropped,
      flags: r.flags,
      usage: r.usage,
      llmCalls: r.llmCalls,
      warnings: r.warnings,
      links,
    },
  };
}

/** The raw-facts tier search, as the engine's `recall` tool runs it (scope policy included). */
export async function recall(
  db: Db,
  bankId: string,
  q: { query: string; tags: string[]; scope: ScopeValue; limit: number },
) {
  const memories = await createMemoryStore(db).recall({ bankId, ...q });
  return RecallResult.parse({ query: q.query, count: memories.length, memories });
}
