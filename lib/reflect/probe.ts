/**
 * The missed-evidence probe (docs/engine.md#the-missed-evidence-probe). After a synthesize run has its answer, and with no LLM call,
 * the question and every distinct query the model issued are searched again across the run's
 * enabled tiers, under the run's own retrieval rules (bank, scope, the skill's tags). The ranked
 * lists are fused (RRF), every memory the run retrieved is dropped, and the best few left are what
 * the run did not see. A negative answer while the probe holds a strong hit flags `missed_evidence`.
 */

import { truncateCodePoints } from "./anchor";
import { type DeadlineScope, errorMessage, withinDeadline } from "./deadline";
import { saysNothingFound } from "./declines";
import {
  CITATION_KEYS,
  type Citations,
  type RunFlag,
  type RunStatus,
  type ScopeValue,
  TIER_REGISTRY,
  type Tier,
} from "./domain";
import { NothingToSearchError } from "./errors";
import type { Evidence } from "./evidence";
import { tierQuery } from "./execute";
import { fuseRanked, rrfScore } from "./fusion";
import type { Clock, HitOf, MemoryPort, ProbeHitText, ProbeSearched, Retrieved, TierQuery } from "./ports";
import { shapeQuery } from "./query-shape";
import type { ProbeHit, ProbeResult, UnusedHit } from "./request";
import { searchTerms, termCoverage } from "./terms";
import { MAX_SEARCH_QUERY_CHARS } from "./tools";

export { saysNothingFound };

/** Searched at most: the question plus seven of the model's queries (the rest are counted, not searched). */
export const PROBE_MAX_QUERIES = 8;
/** Hits asked of each (query, tier) search. */
export const PROBE_SEARCH_LIMIT = 10;
/** Hits the probe keeps after dropping what the run retrieved. */
export const PROBE_TOP_K = 5;

/**
 * "Strong" takes two things, both from the probe's own searches:
 * - **rank**: the store ranked the memory in the top 3 of at least one probe search (the question's
 *   own search or one of the model's queries) — in fused terms an RRF contribution of at least
 *   1 / (60 + 3) from a single list; a memory that only scrapes the bottom of several lists is not
 *   strong, however many;
 * - **match**: the memory holds at least half of that search's terms (stop words aside, compared
 *   by a crude stem), and at least two of them when the search had two or more. Every tier has a
 *   best match for any question that shares one word with it; rank alone would flag a correct
 *   "nothing about that" whenever the bank mentions "v1".
 * Still not meaning: the timeline shows the memory's text so a person can judge it.
 */
export const STRONG_RANK = 3;
export const STRONG_RRF_SCORE = rrfScore(STRONG_RANK);
/** Share of the search's terms a strong hit holds. */
export const STRONG_COVERAGE = 0.5;

export function isStrongRank(bestRank: number): boolean {
  return rrfScore(bestRank) >= STRONG_RRF_SCORE;
}

/**
 * A hit's match with the query that ranked it best: terms held, of how many. The dates a query
 * states are not terms here (a memory of 13 October rarely writes "October 13"), as in the search.
 */
export function isStrongMatch(query: string, text: string): boolean {
  const terms = searchTerms(shapeQuery(query, []).lexical);
  if (terms.length === 0) return false;
  const coverage = termCoverage(terms, text);
  const held = Math.round(coverage * terms.length);
  return coverage >= STRONG_COVERAGE && held >= Math.min(2, terms.length);
}

/**
 * Who a conversation's memories are about (docs/engine.md#the-missed-evidence-probe). A turn is its
 * speaker's: it is read as "Speaker: text", and the other participants' names in it are left out —
 * "Thanks, Mel!" said by Caroline is Caroline's turn, not a memory about Mel. When the question
 * names participants, a strong match must hold one of them; a memory about someone else is not
 * evidence the answer missed (a correct "Mel never said that" is not a miss).
 */
export interface Participants {
  /** Every speaker seen in the run's and the probe's conversation turns. */
  all: ReadonlySet<string>;
  /** Those the question names (by any word of their name). */
  named: readonly string[];
  /** Every word of every participant's name (lower-cased), read once for matchText. */
  nameWords?: ReadonlySet<string>;
}

const nameWords = (name: string) => searchTerms(name);

export function participantsOf(question: string, speakers: Iterable<string | null | undefined>): Participants {
  const all = new Set<string>();
  for (const s of speakers) if (typeof s === "string" && s.trim() !== "") all.add(s.trim());
  const asked = new Set(searchTerms(question));
  const words = new Set<string>();
  const named: string[] = [];
  for (const p of all) {
    const own = nameWords(p);
    for (const w of own) words.add(w);
    if (own.some((w) => asked.has(w))) named.push(p);
  }
  return { all, named, nameWords: words };
}

const WORD = /[\p{L}\p{N}_]+/gu;

/**
 * The text a strong match reads: a turn as "Speaker: text" without the other participants' names.
 * One pass over the text's words, whatever the number of participants (the probe's budget is a few
 * milliseconds for every hit it reads).
 */
export function matchText(text: string, speaker: string | null | undefined, participants: Participants): string {
  if (!speaker) return text;
  const own = new Set(nameWords(speaker));
  const others = participants.nameWords ?? new Set([...participants.all].flatMap(nameWords));
  const body = text.replace(WORD, (w) => {
    const word = w.toLowerCase();
    return others.has(word) && !own.has(word) ? " " : w;
  });
  return `${speaker}: ${body}`;
}

/** A strong match (isStrongMatch) that, when the question names participants, holds one of them. */
export function isStrongMatchFor(query: string, text: string, participants: Participants): boolean {
  if (!isStrongMatch(query, text)) return false;
  if (participants.named.length === 0) return true;
  return participants.named.some((p) => termCoverage(nameWords(p), text) > 0);
}

/** Characters of memory text a probe hit carries for display. */
const PREVIEW_CHARS = 160;

/** Statuses whose answer the probe checks; a failed or interrupted run has no answer to check. */
const PROBED: ReadonlySet<RunStatus> = new Set(["done", "no_evidence", "halted", "degraded"]);

export function isProbedStatus(status: RunStatus): boolean {
  return PROBED.has(status);
}

/**
 * The answer is negative or empty: `no_evidence`, `halted`, ungrounded, or a done/degraded answer
 * that cites nothing and says nothing was found. An answer that cites memories answered from
 * evidence, whatever phrase it uses ("there is no mention of a delay [f-1]").
 */
export function isNegativeAnswer(
  status: RunStatus,
  answer: string,
  flags: ReadonlySet<RunFlag>,
  citedCount = 0,
): boolean {
  if (status === "no_evidence" || status === "halted" || flags.has("ungrounded")) return true;
  return (status === "done" || status === "degraded") && citedCount === 0 && saysNothingFound(answer);
}

export interface ProbeInput {
  memory: MemoryPort;
  clock: Clock;
  bankId: string;
  scope: ScopeValue;
  /** The skill's all-of tags, applied as the run's own searches apply them. */
  tags: string[];
  enabledTiers: readonly Tier[];
  question: string;
  /** Queries the model issued, in order, repeats included. */
  modelQueries: readonly string[];
  /** What the run retrieved (ids inside the capped text the model saw). */
  evidence: Evidence;
  /**
   * Searches (`searchKey`) the run already saw in full, down to the probe's depth: the probe skips
   * them, as everything they return is retrieved and dropped anyway.
   */
  seenInFull?: ReadonlySet<string>;
  /**
   * The run's own searches that are the probe's own (`sameAsProbeSearch`) but whose hits the model
   * did not all see, by `searchKey`: the probe reads their first `PROBE_SEARCH_LIMIT` hits
   * (`probeHitsOf`) instead of asking the store the same search again.
   */
  runSearches?: ReadonlyMap<string, readonly ProbeHitText[]>;
  /** The question's searches, started with the run (`startQuestionSearches`): awaited, not made again. */
  questionSearches?: QuestionSearches;
  /** The bank's conversation speakers (the memory port's `speakers`), when known. */
  speakers?: readonly string[];
}

const normalizedQuery = (q: string) => q.trim().replace(/\s+/g, " ").toLowerCase();

/** Identifies one tier search by its normalized query. */
export function searchKey(tier: Tier, query: string): string {
  return `${tier}\u0000${normalizedQuery(query)}`;
}

/**
 * Whether a run's search leaves nothing for the probe to find under the same query: it is the
 * probe's own search (`sameAsProbeSearch`) and the model saw every hit the store returned (the cap
 * hid none). A deeper search the model saw in full is not enough: its first hits need not be the
 * probe's (see `sameAsProbeSearch`), so the probe searches that query itself.
 */
export function seenInFull(search: { limit: number; returned: number; seen: number }): boolean {
  return search.seen === search.returned && sameAsProbeSearch(search);
}

/**
 * Whether a run's search is the probe's own search of the same query, so the probe may read it
 * instead of asking the store again (`runSearches`): it asked for the probe's depth, or it returned
 * fewer hits than it asked for and than the probe asks for (every match the store holds, at any
 * depth). A deeper search's first hits need not be the probe's: a plain bank ranks a query with
 * more than `OR_RANKED_AT_MOST` matches by the depth asked (the AND answer when at least that many
 * memories hold every word, else the OR; db/queries/search.ts), and a hybrid search fuses each
 * side's top `limit`. docs/engine.md#the-missed-evidence-probe.
 */
export function sameAsProbeSearch(search: { limit: number; returned: number }): boolean {
  return search.limit === PROBE_SEARCH_LIMIT || search.returned < Math.min(search.limit, PROBE_SEARCH_LIMIT);
}

/** A run's search result as the probe reads it: the first `PROBE_SEARCH_LIMIT` hits, each with its text. */
export function probeHitsOf(returned: Retrieved): ProbeHitText[] {
  return (returned.hits as HitOf<Tier>[]).slice(0, PROBE_SEARCH_LIMIT).map((h, i) => ({
    id: h.id,
    rank: h.rank ?? i + 1,
    score: h.score,
    text: fullTextOf(returned.tier, h),
    speaker: speakerOf(returned.tier, h),
  }));
}

/** The question, then each distinct model query (trimmed, case-folded), up to the cap. */
export function probeQueries(
  question: string,
  modelQueries: readonly string[],
): { queries: string[]; skipped: number } {
  const seen = new Set<string>();
  const distinct: string[] = [];
  for (const q of [question, ...modelQueries]) {
    const key = normalizedQuery(q);
    // A query with no search term can place no strong hit (see isStrongMatch), and a full-text
    // store refuses it: it is not a probe search, and takes no place under the cap. Nor is one
    // the run refused as too long to search (tools.ts MAX_SEARCH_QUERY_CHARS).
    if (q.trim().length > MAX_SEARCH_QUERY_CHARS) continue;
    if (key === "" || seen.has(key) || searchTerms(q).length === 0) continue;
    seen.add(key);
    distinct.push(q.trim());
  }
  return { queries: distinct.slice(0, PROBE_MAX_QUERIES), skipped: Math.max(0, distinct.length - PROBE_MAX_QUERIES) };
}

interface Listed {
  id: string;
  tier: Tier;
  rank: number;
  searchScore: number | null;
  query: string;
  preview: string;
  /** The memory's full text and, for a conversation turn, its speaker (read by matchText). */
  text: string;
  speaker: string | null;
}

/** The text the probe reads of a mental model (its match and preview): `name: content`. */
export function mentalModelProbeText(model: { name: string; content: string }): string {
  return `${model.name}: ${model.content}`;
}

function fullTextOf(tier: Tier, hit: HitOf<Tier>): string {
  return tier === "mental_models"
    ? mentalModelProbeText(hit as HitOf<"mental_models">)
    : (hit as HitOf<"raw_facts">).text;
}

function speakerOf(tier: Tier, hit: HitOf<Tier>): string | null {
  return tier === "raw_facts" ? ((hit as HitOf<"raw_facts">).speaker ?? null) : null;
}

/** Speakers of the conversation turns a run retrieved. */
function evidenceSpeakers(evidence: Evidence): (string | null)[] {
  return evidence.hitsOf("raw_facts").map((h) => h.speaker ?? null);
}

function previewOf(text: string): string {
  // A preview is plain text: markdown emphasis, heading and code marks are dropped.
  const plain = text.replace(/^\s{0,3}#{1,6}\s+/gm, "").replace(/\*\*|__|`/g, "");
  return truncateCodePoints(plain.replace(/\s+/g, " ").trim(), PREVIEW_CHARS);
}

/** One probe search: the store's light probe search when it has one, else the tier's own search. */
async function searchTier(input: SearchInput, tier: Tier, query: string): Promise<ProbeHitText[]> {
  const q = { ...tierQuery(input, tier, query, PROBE_SEARCH_LIMIT), probe: true };
  if (input.memory.probeSearch) return input.memory.probeSearch(tier, q);
  const texts = (hits: HitOf<Tier>[]) =>
    hits.map((h) => ({
      id: h.id,
      rank: h.rank,
      score: h.score,
      text: fullTextOf(tier, h),
      speaker: speakerOf(tier, h),
    }));
  switch (tier) {
    case "mental_models":
      return texts(await input.memory.searchMentalModels(q));
    case "observations":
      return texts((await input.memory.searchObservations(q)).observations);
    case "raw_facts":
      return texts(await input.memory.recall(q));
    default: {
      const unknown: never = tier;
      throw new Error(`no search for tier ${String(unknown)}`);
    }
  }
}

/**
 * Each search's hits (in `searches` order): from the run's own answer when it has one
 * (`runSearches`), else from the store — one `probeSearchMany` call per tier when the store has it.
 */
type SearchInput = Pick<ProbeInput, "memory" | "bankId" | "scope" | "tags" | "runSearches" | "questionSearches">;

function searchAll(input: SearchInput, searches: readonly { query: string; tier: Tier }[]): Promise<ProbeHitText[]>[] {
  const started = searches.map(({ query, tier }) => input.questionSearches?.get(searchKey(tier, query)));
  const reused = searches.map(({ query, tier }, i) => started[i] ?? input.runSearches?.get(searchKey(tier, query)));
  // A port is outside the engine: a store that throws instead of rejecting fails its searches, not the run.
  const many =
    typeof input.memory.probeSearchMany === "function"
      ? async (tier: Tier, queries: string[], q: Omit<TierQuery, "query">) =>
          input.memory.probeSearchMany!(tier, queries, q)
      : undefined;
  const byTier = new Map<Tier, Promise<ProbeSearched[]>>();
  if (many) {
    for (const tier of new Set(searches.map((s) => s.tier))) {
      const queries = searches.filter((s, i) => s.tier === tier && !reused[i]).map((s) => s.query);
      if (queries.length === 0) continue;
      const { query: _none, ...base } = tierQuery(input, tier, "", PROBE_SEARCH_LIMIT);
      byTier.set(tier, many(tier, queries, { ...base, probe: true }));
    }
  }
  return searches.map(async ({ query, tier }, i) => {
    const early = started[i];
    if (early) return early;
    const own = reused[i];
    if (own) return [...(own as readonly ProbeHitText[])];
    const batch = byTier.get(tier);
    if (!batch) return searchTier(input, tier, query);
    const queries = searches.filter((s, j) => s.tier === tier && !reused[j]).map((s) => s.query);
    const answer = (await batch)[queries.indexOf(query)];
    if (!answer) throw new Error(`the store gave no answer for this search`);
    if ("error" in answer) throw answer.error;
    return answer.hits;
  });
}

/**
 * The probe's searches started before the answer, by `searchKey`: the question's, with the run
 * (`startQuestionSearches`), and each model query's the probe must make itself, as soon as the run
 * has made it (`startEarlySearch`). The probe after the answer awaits them instead of searching.
 */
export type QuestionSearches = ReadonlyMap<string, Promise<ProbeHitText[]>>;

type EarlyInput = Pick<ProbeInput, "memory" | "bankId" | "scope" | "tags">;

/** Starts `searches` into `into` (one not yet there each); a failed one is kept for the probe to name. */
function startSearches(
  input: EarlyInput,
  searches: readonly { query: string; tier: Tier }[],
  into: Map<string, Promise<ProbeHitText[]>>,
): void {
  const fresh = searches.filter(({ query, tier }) => !into.has(searchKey(tier, query)));
  const answers = searchAll(input, fresh);
  for (const [i, { tier, query }] of fresh.entries()) {
    const answer = answers[i]!;
    answer.catch(() => undefined);
    into.set(searchKey(tier, query), answer);
  }
}

/**
 * Starts the probe's searches of the question on every enabled tier
 * (docs/engine.md#the-missed-evidence-probe). They need nothing the run finds, so the engine starts
 * them before the run's first model call and they run while the model thinks; the probe after the
 * answer only waits for them. They read the bank as it was when the run started searching. A failed
 * search is kept for the probe to name (never an unhandled rejection).
 */
export function startQuestionSearches(
  input: EarlyInput & Pick<ProbeInput, "enabledTiers" | "question">,
): Map<string, Promise<ProbeHitText[]>> {
  const out = new Map<string, Promise<ProbeHitText[]>>();
  const question = probeQueries(input.question, []).queries[0];
  if (question === undefined) return out;
  startSearches(
    input,
    input.enabledTiers.map((tier) => ({ tier, query: question })),
    out,
  );
  return out;
}

/**
 * Starts the probe's own search of a model query on the tier the model searched, when the run's
 * search cannot stand for it (neither `seenInFull` nor `sameAsProbeSearch`): right after the run's
 * search, not after the answer, so the probe only waits for it. Only a query the probe will ask
 * (`probeQueries`: the question, then the first distinct model queries up to the cap); it reads the
 * bank as it was then, like the question's searches.
 */
export function startEarlySearch(
  input: EarlyInput & Pick<ProbeInput, "question" | "modelQueries">,
  search: { tier: Tier; query: string },
  into: Map<string, Promise<ProbeHitText[]>>,
): void {
  const asked = new Set(probeQueries(input.question, input.modelQueries).queries.map(normalizedQuery));
  if (!asked.has(normalizedQuery(search.query))) return;
  startSearches(input, [search], into);
}

/** Runs the probe. Never throws: a failed search is named in `errors` and the rest still count. */
export async function probe(input: ProbeInput): Promise<ProbeResult> {
  const started = input.clock.now();
  const { queries, skipped } = probeQueries(input.question, input.modelQueries);
  const errors: string[] = [];
  const searches = queries
    .flatMap((query) => input.enabledTiers.map((tier) => ({ query, tier })))
    .filter(({ query, tier }) => !input.seenInFull?.has(searchKey(tier, query)));
  const answers = searchAll(input, searches);
  const lists = await Promise.all(
    searches.map(async ({ query, tier }, n): Promise<Listed[]> => {
      try {
        const hits = await answers[n]!;
        return hits.map((h, i) => ({
          id: h.id,
          tier,
          rank: h.rank ?? i + 1,
          searchScore: h.score ?? null,
          query,
          preview: previewOf(h.text),
          text: h.text,
          speaker: h.speaker ?? null,
        }));
      } catch (e) {
        // A query of only common words searches nothing: no hit to miss, and no failure.
        if (!(e instanceof NothingToSearchError))
          errors.push(`${tier} search for "${query}" failed: ${errorMessage(e)}`);
        return [];
      }
    }),
  );
  const participants = participantsOf(input.question, [
    ...(input.speakers ?? []),
    ...evidenceSpeakers(input.evidence),
    ...lists.flat().map((l) => l.speaker),
  ]);
  // The best single-list placement of each memory (the query that found it and its rank there),
  // and whether any one search placed it strongly: high enough, and matching enough of that search.
  const best = new Map<string, Listed>();
  const strong = new Set<string>();
  for (const list of lists) {
    for (const l of list) {
      const key = `${l.tier}:${l.id}`;
      const current = best.get(key);
      if (!current || l.rank < current.rank) best.set(key, l);
      if (isStrongRank(l.rank) && isStrongMatchFor(l.query, matchText(l.text, l.speaker, participants), participants))
        strong.add(key);
    }
  }
  const fused = fuseRanked(lists, (l) => `${l.tier}:${l.id}`).filter(
    ({ item }) => !input.evidence.has(item.tier, item.id),
  );
  const hits: ProbeHit[] = fused.slice(0, PROBE_TOP_K).map(({ item, score }, i) => {
    const top = best.get(`${item.tier}:${item.id}`) ?? item;
    return {
      id: item.id,
      tier: item.tier,
      rank: i + 1,
      bestRank: top.rank,
      score,
      searchScore: top.searchScore,
      query: top.query,
      preview: top.preview,
      strong: strong.has(`${item.tier}:${item.id}`),
    };
  });
  return {
    queries,
    skippedQueries: skipped,
    hits,
    strong: hits.some((h) => h.strong),
    durationMs: Math.max(0, input.clock.now() - started),
    errors,
  };
}

/**
 * Probe v2, "read but not used": memories the run did retrieve, placed in the top `STRONG_RANK` of
 * one of its own searches and holding enough of the question's terms (`isStrongMatch`, the probe's
 * own rule), that the answer does not cite. With a negative answer each one is a miss the run made
 * with the evidence in hand ("the run read D4:15 at rank 3 and did not use it"). Best rank first.
 */
export function readButUnused(
  question: string,
  evidence: Evidence,
  citations: Citations,
  speakers: readonly string[] = [],
): UnusedHit[] {
  const cited = new Set(CITATION_KEYS.flatMap((k) => citations[k]));
  const participants = participantsOf(question, [...speakers, ...evidenceSpeakers(evidence)]);
  const out: UnusedHit[] = [];
  for (const { id: tier } of TIER_REGISTRY) {
    for (const hit of evidence.hitsOf(tier)) {
      const rank = evidence.rankOf(tier, hit.id) ?? Number.POSITIVE_INFINITY;
      if (cited.has(hit.id) || !isStrongRank(rank)) continue;
      const text = fullTextOf(tier, hit);
      // A conversation's turn is its speaker's: "Ana" in the question is met by what Ana said.
      if (isStrongMatchFor(question, matchText(text, speakerOf(tier, hit), participants), participants)) {
        out.push({ id: hit.id, tier, rank, preview: previewOf(text) });
      }
    }
  }
  return out.sort((a, b) => a.rank - b.rank).slice(0, PROBE_TOP_K);
}

/**
 * The probe inside the run's wall clock and abort signal: a probe that cannot finish in time is
 * recorded as such (no hits, the reason in `errors`) and never changes how the run ended.
 */
export async function probeWithinDeadline(deadline: DeadlineScope, input: ProbeInput): Promise<ProbeResult> {
  const started = input.clock.now();
  try {
    return await withinDeadline(deadline, () => probe(input));
  } catch (e) {
    const { queries, skipped } = probeQueries(input.question, input.modelQueries);
    return {
      queries,
      skippedQueries: skipped,
      hits: [],
      strong: false,
      durationMs: Math.max(0, input.clock.now() - started),
      errors: [`the probe did not finish: ${errorMessage(e)}`],
    };
  }
}
