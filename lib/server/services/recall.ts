/**
 * Recall without a run: one tier's search, as the engine's tools run it (bank, scope policy, tags),
 * for the API's `POST /banks/{bank}/recall` and MCP's `memory_recall`. Raw facts can bring each
 * conversation turn's neighbours as context.
 */
import type { z } from "zod";
import type { Db } from "@/db/client";
import { getBank } from "@/db/queries/banks";
import { createMemoryStore } from "@/db/queries/memory-store";
import { readableScopes } from "@/db/queries/scope";
import { factContext } from "@/db/queries/search";
import { AppError } from "@/lib/contracts/errors";
import type { ContextTurn, RecallBody, RecallResult } from "@/lib/contracts/memory";
import type { TierQuery } from "@/lib/reflect/ports";
import { admit } from "../runtime/admission";

const turn = (
  f: { id: string; speaker: string | null; position: number | null; text: string } | null,
): ContextTurn | null => (f ? { id: f.id, speaker: f.speaker, position: f.position, text: f.text } : null);

/**
 * One tier's search. It holds a recall slot while it reads, whatever door asked (the API, MCP):
 * past the slots it waits in line, past the queue it is refused with `too_busy`
 * (lib/server/runtime/admission.ts). `signal`: a caller that goes away leaves the line.
 */
export async function recallTier(
  db: Db,
  bankId: string,
  body: z.output<typeof RecallBody>,
  options: { signal?: AbortSignal } = {},
): Promise<RecallResult> {
  const slot = await admit("recall", options.signal);
  try {
    return await recallTierNow(db, bankId, body);
  } finally {
    slot.release();
  }
}

async function recallTierNow(db: Db, bankId: string, body: z.output<typeof RecallBody>): Promise<RecallResult> {
  const { tier, context, ...rest } = body;
  if (context && tier !== "raw_facts") {
    // Only conversation turns have neighbours: asking for them elsewhere is a mistake to say, not to ignore.
    throw new AppError("invalid_input", `context is for raw facts only (got tier "${tier}" with context: true)`, {
      fieldErrors: { context: ["context is for raw facts only"] },
    });
  }
  const memory = createMemoryStore(db);
  const q: TierQuery = { bankId, ...rest };
  switch (tier) {
    case "raw_facts": {
      const memories = (await memory.recall(q)).map(({ rank: _r, score: _s, ...m }) => ({
        ...m,
        speaker: m.speaker ?? null,
        sessionId: m.sessionId ?? null,
        position: m.position ?? null,
      }));
      if (!context) return { tier, query: q.query, count: memories.length, memories };
      const teams = (await getBank(db, bankId))?.permittedTeams ?? [];
      const around = await factContext(db, { bankId, scopes: readableScopes(q.scope, teams) }, memories);
      return {
        tier,
        query: q.query,
        count: memories.length,
        memories: memories.map((m) => ({
          ...m,
          context: { before: turn(around.get(m.id)?.before ?? null), after: turn(around.get(m.id)?.after ?? null) },
        })),
      };
    }
    case "observations": {
      const { observations, freshness, pending } = await memory.searchObservations(q);
      return {
        tier,
        query: q.query,
        count: observations.length,
        observations: observations.map(({ rank: _r, score: _s, ...o }) => o),
        freshness,
        pending,
      };
    }
    case "mental_models": {
      const models = await memory.searchMentalModels(q);
      return {
        tier,
        query: q.query,
        count: models.length,
        mentalModels: models.map((m) => ({
          id: m.id,
          name: m.name,
          content: m.content,
          tags: m.tags,
          version: m.version,
          refreshedAt: m.refreshedAt,
          isStale: m.isStale,
          stalenessReason: m.stalenessReason,
          usable: m.usable,
        })),
      };
    }
    default: {
      const unknown: never = tier;
      throw new Error(`no recall for tier ${String(unknown)}`);
    }
  }
}
