/**
 * Raw-fact search in a bank of conversations (facts with a speaker, a session and a position) or
 * for a query that states a date. BM25 alone reads each turn on its own; five things a person
 * would use are added on the BM25 candidates, each measured on LoCoMo's development half (README,
 * "Retrieval on real conversations"):
 * - **neighbours**: an answer rarely repeats its question's words ("What did you do last
 *   weekend?" / "Went camping!"), so a turn earns part of the best score of the turn before or
 *   after it in its session;
 * - **the session**: a topic is talked through in one sitting, so a turn earns part of its
 *   session's best scores;
 * - **the speaker**: a question naming a speaker of the bank favours that speaker's turns, and the
 *   name itself is not searched (it is in the *other* speaker's greetings, not in one's own turns);
 * - **dates**: a date or month the query states favours memories of that day or month, and its
 *   words are not searched;
 * - **observation sources**: an observation summarises in the words a question uses ("Ana works at
 *   a bakery") what its source turns say otherwise ("I started at the bakery"), so the sources of
 *   the observations that best match the query earn part of the best candidate's score.
 * A bank without speakers or sessions and a query without dates take the plain BM25 path.
 */
import type { InArgs, InValue } from "@libsql/client";
import { isoMatches } from "@/lib/reflect/dates";
import type { QueryShape } from "@/lib/reflect/query-shape";
import type { Db } from "../client";

export interface ConversationTuning {
  candidates: number;
  neighbour: number;
  session: number;
  speaker: number;
  date: number;
  month: number;
  observation: number;
  observations: number;
}

/** The tuning in use; the bench passes others to measure each technique's share (1 or 0 switches one off). */
export const CONVERSATION_TUNING: ConversationTuning = {
  /** BM25 candidates reranked (they are all the matches on a conversation-sized bank). */
  candidates: 200,
  /** Share of the better neighbour's score a turn earns. */
  neighbour: 0.7,
  /** Share of its session's mean top-3 score a turn earns. */
  session: 0.5,
  /** Multiplier for a turn by a speaker the query names. */
  speaker: 1.3,
  /** Multiplier for a memory dated on a date the query states (day, month or year as stated). */
  date: 3,
  /** Multiplier for a memory dated in a month the query names without a year. */
  month: 2,
  /** Share of the best candidate's score a turn earns as a source of an observation the query matches (× 1/rank). */
  observation: 0.5,
  /** Observations searched for their sources. */
  observations: 5,
};

/** What the reranker reads of a fact (a `FactRow` has all of it). */
export interface RankableFact {
  id: string;
  speaker: string | null;
  sessionId: string | null;
  position: number | null;
  occurredAt: string | null;
}

/** Speakers a bank's profile names at most. */
const PROFILED_SPEAKERS = 100;

/**
 * The speakers a bank's facts name and whether any fact has a session: one indexed statement that
 * seeks instead of scanning (docs/performance.md#the-probe-at-100k). `IS NOT NULL` made SQLite walk
 * every index entry of the bank — every fact of a bank of plain facts, whose speaker and session
 * are all NULL (8 ms per search at 100k facts); a text column's non-NULL values are all `>= ''`,
 * a range the index seeks to. The distinct speakers are read by skipping from one to the next
 * (`MIN(speaker) > previous`), a few index seeks per speaker however many turns each has.
 */
export async function bankConversationProfile(
  db: Db,
  bankId: string,
): Promise<{ speakers: string[]; sessions: boolean }> {
  const { rows } = await db.$client.execute({
    sql: `WITH RECURSIVE sp(speaker, n) AS (
            SELECT (SELECT MIN(speaker) FROM facts WHERE bank_id = ?1 AND speaker >= ''), 1
            UNION ALL
            SELECT (SELECT MIN(speaker) FROM facts WHERE bank_id = ?1 AND speaker > sp.speaker), sp.n + 1
            FROM sp WHERE sp.speaker IS NOT NULL AND sp.n < ?2)
          SELECT EXISTS (SELECT 1 FROM facts WHERE bank_id = ?1 AND session_id >= '') AS sessions,
                 (SELECT json_group_array(speaker) FROM sp WHERE speaker IS NOT NULL) AS speakers`,
    args: [bankId, PROFILED_SPEAKERS],
  });
  const row = rows[0];
  return {
    sessions: Number(row?.sessions ?? 0) !== 0,
    speakers: JSON.parse(String(row?.speakers ?? "[]")) as string[],
  };
}

const key = (sessionId: string, position: number) => `${sessionId}\u0000${position}`;

/**
 * The turns right before and after each candidate that are not candidates themselves, read with
 * the search's own bank, scope and tag filter (`where` on alias `m`).
 */
export async function neighbourRows(
  db: Db,
  candidates: readonly RankableFact[],
  columns: string,
  filter: { where: string; args: InValue[] },
): Promise<Record<string, unknown>[]> {
  const have = new Set(
    candidates.filter((c) => c.sessionId !== null && c.position !== null).map((c) => key(c.sessionId!, c.position!)),
  );
  const wanted: [string, number][] = [];
  for (const c of candidates) {
    if (c.sessionId === null || c.position === null) continue;
    for (const p of [c.position - 1, c.position + 1]) {
      const k = key(c.sessionId, p);
      if (!have.has(k)) {
        have.add(k);
        wanted.push([c.sessionId, p]);
      }
    }
  }
  if (wanted.length === 0) return [];
  const { rows } = await db.$client.execute({
    // CROSS JOIN keeps the wanted turns as the outer loop: each is one lookup in facts_bank_session_idx.
    sql: `SELECT ${columns} FROM json_each(?) j
          CROSS JOIN facts m INDEXED BY facts_bank_session_idx
            ON m.session_id = json_extract(j.value, '$[0]') AND m.position = json_extract(j.value, '$[1]')
          WHERE ${filter.where}`,
    args: [JSON.stringify(wanted), ...filter.args] as InArgs,
  });
  return rows as unknown as Record<string, unknown>[];
}

/**
 * Scores candidates (with their BM25-derived scores, higher is better) and their neighbours, best
 * first. Ties keep the id order, as every search does.
 */
export function rerankConversation<F extends RankableFact>(
  shape: QueryShape,
  candidates: readonly (F & { score: number })[],
  neighbours: readonly F[],
  t: ConversationTuning = CONVERSATION_TUNING,
  sourced: ReadonlyMap<string, number> = new Map(),
): (F & { score: number })[] {
  // The scale of an observation's pull: the best candidate's score (1 when no turn matched at all).
  const best = candidates.reduce((m, c) => Math.max(m, c.score), 0) || 1;
  const own = new Map<string, number>();
  for (const c of candidates)
    if (c.sessionId !== null && c.position !== null) own.set(key(c.sessionId, c.position), c.score);
  const sessionTop = new Map<string, number[]>();
  for (const c of candidates) {
    if (c.sessionId === null) continue;
    const list = sessionTop.get(c.sessionId) ?? [];
    list.push(c.score);
    sessionTop.set(c.sessionId, list);
  }
  const sessionScore = new Map(
    [...sessionTop].map(([s, scores]) => [
      s,
      scores
        .sort((a, b) => b - a)
        .slice(0, 3)
        .reduce((a, b) => a + b, 0) / 3,
    ]),
  );
  const scored = [...candidates, ...neighbours.map((n) => ({ ...n, score: 0 }))].map((f) => {
    let score = f.score;
    if (f.sessionId !== null && f.position !== null) {
      const before = own.get(key(f.sessionId, f.position - 1)) ?? 0;
      const after = own.get(key(f.sessionId, f.position + 1)) ?? 0;
      score += t.neighbour * Math.max(before, after) + t.session * (sessionScore.get(f.sessionId) ?? 0);
    }
    score += t.observation * best * (sourced.get(f.id) ?? 0);
    if (shape.speakers.length > 0 && f.speaker !== null && shape.speakers.includes(f.speaker)) score *= t.speaker;
    if (f.occurredAt !== null) {
      if (shape.dates.some((d) => isoMatches(f.occurredAt!, d))) score *= t.date;
      else if (shape.dates.length === 0 && shape.months.includes(new Date(f.occurredAt).getUTCMonth() + 1)) {
        score *= t.month;
      }
    }
    return { ...f, score };
  });
  // A neighbour of a weak match in a session of weak matches can score 0: it matched nothing.
  return scored
    .filter((f) => f.score > 0)
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
