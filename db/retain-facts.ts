/**
 * Facts retained by an agent through MCP `memory_retain`: always new rows with generated ids,
 * inserted in one batch (all or nothing). `updatedAt` = now, which is what makes mental models
 * whose scope covers them stale.
 */
import { randomUUID } from "node:crypto";
import type { ScopeValue } from "@/lib/reflect/domain";
import type { Db } from "./client";
import { facts } from "./schema";

export interface NewFact {
  text: string;
  kind: "world" | "experience";
  tags: string[];
  scope: ScopeValue;
  /** ISO-8601. */
  occurredAt?: string | null;
}

/** Inserts the facts and returns their new ids, in input order. */
export async function retainFacts(
  db: Db,
  bankId: string,
  input: readonly NewFact[],
  at = new Date(),
): Promise<string[]> {
  const now = at.toISOString();
  const rows = input.map((f) => ({
    id: `fact_${randomUUID()}`,
    bankId,
    text: f.text,
    kind: f.kind,
    tags: f.tags,
    scope: f.scope,
    occurredAt: f.occurredAt ? new Date(f.occurredAt).toISOString() : null,
    recordedAt: now,
    updatedAt: now,
    documentId: null,
  }));
  const [first, ...rest] = rows.map((row) => db.insert(facts).values(row));
  if (first) await db.batch([first, ...rest]);
  return rows.map((r) => r.id);
}
