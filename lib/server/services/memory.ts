import type { z } from "zod";
import type { Db } from "@/db/client";
import { getBank, listBanks } from "@/db/queries/banks";
import { bankScopes, browseFacts, browseObservations, tierCounts } from "@/db/queries/browse";
import { listMentalModels, type MentalModelRecord } from "@/db/queries/mental-models";
import { type FactRow, factContext } from "@/db/queries/search";
import type { BankSummary } from "@/lib/contracts/banks";
import type { MemoryPage, MemoryQuery } from "@/lib/contracts/memory";
import type { MentalModelItem, StalenessState } from "@/lib/contracts/mental-models";

export function stalenessState(
  m: Pick<MentalModelRecord, "usable" | "staleOverride" | "refreshedAt" | "isStale">,
): StalenessState {
  if (!m.usable) return "unusable";
  if (m.staleOverride === "stale") return "overridden_stale";
  if (m.staleOverride === "fresh") return "overridden_fresh";
  if (m.refreshedAt === null) return "never_refreshed";
  return m.isStale ? "stale" : "fresh";
}

function toMentalModelItem(m: MentalModelRecord): MentalModelItem {
  return {
    id: m.id,
    name: m.name,
    sourceQuery: m.sourceQuery,
    content: m.content,
    tags: m.tags,
    refreshedAt: m.refreshedAt,
    version: m.version,
    isStale: m.isStale,
    usable: m.usable,
    state: stalenessState(m),
    reason: m.stalenessReason,
  };
}

function matches(m: MentalModelRecord, q: string): boolean {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  const hay = `${m.name}\n${m.content}\n${m.tags.join(" ")}\n${m.sourceQuery}`.toLowerCase();
  return words.some((w) => hay.includes(w));
}

export async function browseMemory(
  db: Db,
  bankId: string,
  q: z.output<typeof MemoryQuery>,
): Promise<MemoryPage | null> {
  if (!(await getBank(db, bankId))) return null;
  // `id` names one memory (a run's memory card) or several, comma-separated (an observation's facts).
  const ids = q.id ? [...new Set(q.id.split(",").map((s) => s.trim()))].filter(Boolean) : undefined;
  if (q.tier === "mental_models") {
    const models = await listMentalModels(db, bankId);
    const shown = ids ? models.filter((m) => ids.includes(m.id)) : models.filter((m) => !q.q || matches(m, q.q));
    return { tier: q.tier, items: shown.map(toMentalModelItem) };
  }
  if (q.tier === "observations") {
    return { tier: q.tier, items: await browseObservations(db, { bankId, query: q.q, limit: q.limit, ids }) };
  }
  const facts = await browseFacts(db, { bankId, query: q.q, limit: q.limit, ids });
  if (!ids) return { tier: q.tier, items: facts };
  // Facts opened by id (one, or an observation's): each with its neighbouring turns, in any scope
  // (the browser shows every scope).
  const around = await factContext(db, { bankId, scopes: await bankScopes(db, bankId) }, facts);
  return { tier: q.tier, items: facts.map((f) => ({ ...f, context: contextOf(around.get(f.id)) })) };
}

const contextTurn = (f: FactRow | null) =>
  f ? { id: f.id, speaker: f.speaker, position: f.position, text: f.text } : null;
const contextOf = (c: { before: FactRow | null; after: FactRow | null } | undefined) =>
  c ? { before: contextTurn(c.before), after: contextTurn(c.after) } : undefined;

export async function bankSummary(db: Db, bankId: string): Promise<BankSummary | null> {
  const bank = await getBank(db, bankId);
  if (!bank) return null;
  return {
    id: bank.id,
    name: bank.name,
    permittedTeams: bank.permittedTeams,
    scopes: await bankScopes(db, bankId),
    counts: await tierCounts(db, bankId),
  };
}

export async function defaultBankId(db: Db): Promise<string | null> {
  return (await listBanks(db))[0]?.id ?? null;
}
