/**
 * Decisions on refresh proposals (mental_model_refreshes): a row per refresh run made from the
 * editor, open until Accept or Discard records what became of it.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../client";
import { mentalModelRefreshes } from "../schema";

export type RefreshDecisionRecord = typeof mentalModelRefreshes.$inferSelect;

interface RefreshOf {
  runId: string;
  bankId: string;
  modelId: string;
  baseVersion: number;
}

/** The proposal was shown: open until decided. */
export async function recordRefreshProposal(db: Db, refresh: RefreshOf): Promise<void> {
  await db.insert(mentalModelRefreshes).values(refresh).onConflictDoNothing();
}

/** Accept (with the version it became) or Discard; recorded even when the proposal's row predates decisions. */
export async function recordRefreshDecision(
  db: Db,
  refresh: RefreshOf & { decision: "accepted" | "discarded"; acceptedVersion?: number; decidedAt?: string },
): Promise<void> {
  const decided = {
    decision: refresh.decision,
    acceptedVersion: refresh.acceptedVersion ?? null,
    decidedAt: refresh.decidedAt ?? new Date().toISOString(),
  };
  const { runId, bankId, modelId, baseVersion } = refresh;
  await db
    .insert(mentalModelRefreshes)
    .values({ runId, bankId, modelId, baseVersion, ...decided })
    .onConflictDoUpdate({ target: mentalModelRefreshes.runId, set: decided });
}

export async function getRefreshDecision(db: Db, runId: string): Promise<RefreshDecisionRecord | null> {
  const [row] = await db.select().from(mentalModelRefreshes).where(eq(mentalModelRefreshes.runId, runId));
  return row ?? null;
}
