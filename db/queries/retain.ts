/**
 * Retaining facts (tier 3) from outside: new ids are inserted, existing ids rewritten, all in one
 * batch so a failure keeps nothing. `updatedAt` is the retain time, which is what makes the
 * mental models whose scope covers these facts stale (staleness is computed, never stored).
 */
import { randomUUID } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { ScopeValue } from "@/lib/reflect/domain";
import type { Db } from "../client";
import { facts } from "../schema";
import { storageKeyOf } from "./bank-storage";
import { flushAfterWrite } from "./search-index";

export interface RetainedFact {
  /** Omit to generate one; an id the bank already holds rewrites that fact. */
  id?: string;
  text: string;
  kind: "world" | "experience";
  tags: string[];
  scope: ScopeValue;
  occurredAt?: string | null;
  documentId?: string | null;
  speaker?: string | null;
  sessionId?: string | null;
  position?: number | null;
}

export interface InsertFactsResult {
  inserted: string[];
  updated: string[];
}

export async function insertFacts(
  db: Db,
  bankId: string,
  input: readonly RetainedFact[],
  options: { at?: string } = {},
): Promise<InsertFactsResult> {
  if (input.length === 0) return { inserted: [], updated: [] };
  const at = new Date(options.at ?? Date.now()).toISOString();
  // Stored under the bank's storage key (bank-storage.ts), read in each statement.
  const rows = input.map((f) => ({
    id: f.id ?? `fact_${randomUUID()}`,
    bankId: storageKeyOf(bankId),
    text: f.text,
    kind: f.kind,
    tags: f.tags,
    scope: f.scope,
    occurredAt: f.occurredAt ? new Date(f.occurredAt).toISOString() : null,
    recordedAt: at,
    updatedAt: at,
    documentId: f.documentId ?? null,
    speaker: f.speaker ?? null,
    sessionId: f.sessionId ?? null,
    position: f.position ?? null,
  }));
  const ids = rows.map((r) => r.id);
  const existing = new Set(
    (
      await db
        .select({ id: facts.id })
        .from(facts)
        .where(and(eq(facts.bankId, storageKeyOf(bankId)), inArray(facts.id, ids)))
    ).map((r) => r.id),
  );
  const [first, ...rest] = rows.map((row) =>
    db
      .insert(facts)
      .values(row)
      .onConflictDoUpdate({
        target: [facts.bankId, facts.id],
        // recordedAt stays the first time the fact was retained; everything else is the new value.
        set: {
          text: sql`excluded.text`,
          kind: sql`excluded.kind`,
          tags: sql`excluded.tags`,
          scope: sql`excluded.scope`,
          occurredAt: sql`excluded.occurred_at`,
          updatedAt: sql`excluded.updated_at`,
          documentId: sql`excluded.document_id`,
          speaker: sql`excluded.speaker`,
          sessionId: sql`excluded.session_id`,
          position: sql`excluded.position`,
        },
      }),
  );
  if (first) await db.batch([first, ...rest]);
  await flushAfterWrite(db, bankId, ["facts"]);
  return { inserted: ids.filter((id) => !existing.has(id)), updated: ids.filter((id) => existing.has(id)) };
}
