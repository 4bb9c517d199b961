/** The engine's memory port over the libSQL store (scope rules: see scope.ts). */
import { NothingToSearchError, ScopeNotPermittedError } from "@/lib/reflect/errors";
import type { MemoryPort, TierQuery } from "@/lib/reflect/ports";
import { mentalModelProbeText } from "@/lib/reflect/probe";
import { searchTerms } from "@/lib/reflect/terms";
import type { Db } from "../client";
import { getBank } from "./banks";
import { bankConversationProfile } from "./conversation-rank";
import { countMentalModels, listMentalModels } from "./mental-models";
import { isScopePermitted, readableScopes, teamOf } from "./scope";
import {
  countMemories,
  observationFreshness,
  searchFacts,
  searchMentalModelIds,
  searchMentalModelTexts,
  searchMentalModelTextsMany,
  searchObservations,
} from "./search";

export interface MemoryStoreOptions {
  /** Embeds a query for hybrid search; without it retrieval is BM25 only. */
  embed?: (text: string) => Promise<number[]>;
}

export function createMemoryStore(db: Db, options: MemoryStoreOptions = {}): MemoryPort {
  /**
   * The bank's permitted teams. Searches that start while a read for the same bank is in flight
   * share it (the probe starts its tier searches together): the answer is as fresh as their own
   * reads would have been, and a read that starts after it finishes reads again.
   */
  const reading = new Map<string, Promise<string[]>>();
  const permittedTeams = (bankId: string): Promise<string[]> => {
    const inFlight = reading.get(bankId);
    if (inFlight) return inFlight;
    const read = getBank(db, bankId)
      .then((bank) => bank?.permittedTeams ?? [])
      .finally(() => reading.delete(bankId));
    reading.set(bankId, read);
    return read;
  };

  /**
   * Resolves the run scope to readable memory scopes, rejecting a team the bank does not permit.
   * Only a team scope of a scoped tier needs the bank's teams: `personal` reads `personal` whatever
   * they are, and mental models (`scoped` false) ignore the scope, so neither pays for the lookup.
   */
  const tierSearch = async (q: TierQuery, scoped = true) => {
    const teams = scoped && teamOf(q.scope) !== null ? await permittedTeams(q.bankId) : [];
    if (scoped && !isScopePermitted(q.scope, teams)) throw new ScopeNotPermittedError(q.scope, q.bankId);
    // Full-text search needs a search term; a semantic search can read any text.
    if (!options.embed && searchTerms(q.query).length === 0) throw new NothingToSearchError(q.query);
    const embedding = options.embed && q.query.trim() ? await options.embed(q.query) : undefined;
    return {
      bankId: q.bankId,
      query: q.query,
      limit: q.limit,
      tags: q.tags,
      scopes: readableScopes(q.scope, teams),
      embedding,
    };
  };

  const probeSearch: NonNullable<MemoryPort["probeSearch"]> = async (tier, q) => {
    // The same searches as above, rules included (mental models ignore the scope), without the
    // mental models' staleness and the observations' freshness: the probe reads neither.
    const search = await tierSearch(q, tier !== "mental_models");
    const hits =
      tier === "mental_models"
        ? (await searchMentalModelTexts(db, search)).map((m) => ({ ...m, text: mentalModelProbeText(m) }))
        : await (tier === "observations" ? searchObservations : searchFacts)(db, search);
    return hits.map((h) => ({
      id: h.id,
      rank: h.rank,
      score: h.score,
      text: h.text,
      speaker: "speaker" in h ? h.speaker : null,
    }));
  };

  return {
    async countInScope({ bankId, scope }) {
      const scopes = readableScopes(scope, await permittedTeams(bankId));
      return (await countMemories(db, { bankId, scopes })) + (await countMentalModels(db, bankId));
    },

    countMentalModels: (bankId) => countMentalModels(db, bankId),
    speakers: async (bankId) => (await bankConversationProfile(db, bankId)).speakers,

    permitsScope: async ({ bankId, scope }) => isScopePermitted(scope, await permittedTeams(bankId)),

    async searchMentalModels(q) {
      // Mental models are bank-wide: the run's scope neither filters nor rejects them.
      const search = await tierSearch(q, false);
      const ranked = await searchMentalModelIds(db, search);
      const records = new Map(
        (
          await listMentalModels(
            db,
            q.bankId,
            ranked.map((r) => r.id),
          )
        ).map((m) => [m.id, m]),
      );
      return ranked.flatMap(({ id, relevance, rank, score }) => {
        const m = records.get(id);
        return m
          ? [
              {
                id: m.id,
                name: m.name,
                content: m.content,
                tags: m.tags,
                version: m.version,
                relevance,
                refreshedAt: m.refreshedAt,
                isStale: m.isStale,
                stalenessReason: m.stalenessReason,
                usable: m.usable,
                rank,
                score,
              },
            ]
          : [];
      });
    },

    async searchObservations(q) {
      const search = await tierSearch(q);
      const observations = await searchObservations(db, search);
      const freshness = await observationFreshness(db, search);
      return { observations, ...freshness };
    },

    async recall(q) {
      const facts = await searchFacts(db, await tierSearch(q));
      return facts.map(({ updatedAt: _updatedAt, ...fact }) => fact);
    },

    async probeSearchMany(tier, queries, q) {
      // Mental models: every query in one statement (search.ts `searchMentalModelTextsMany`).
      if (tier !== "mental_models" || options.embed) {
        return Promise.all(
          queries.map(async (query) => {
            try {
              return { hits: await probeSearch(tier, { ...q, query }) };
            } catch (error) {
              return { error };
            }
          }),
        );
      }
      // Bank-wide: no scope to check or read (as `tierSearch(q, false)`).
      const search = { bankId: q.bankId, limit: q.limit, tags: q.tags, scopes: [] };
      const lists = await searchMentalModelTextsMany(db, search, queries);
      return lists.map((list, i) =>
        "error" in list
          ? list
          : searchTerms(queries[i]!).length === 0
            ? { error: new NothingToSearchError(queries[i]!) }
            : {
                hits: list.hits.map((m) => ({
                  id: m.id,
                  rank: m.rank,
                  score: m.score,
                  text: mentalModelProbeText(m),
                  speaker: null,
                })),
              },
      );
    },

    probeSearch,
  };
}
