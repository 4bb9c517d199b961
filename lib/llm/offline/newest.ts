/**
 * Newest wins: among the strongest passages about the same subject, when they disagree (another
 * date or amount, a blocker reported cleared) or the question asks how things stand now, the
 * newest memory leads and the older ones that disagree with it are named as what it superseded.
 */
import type { Question } from "./question";
import type { Passage } from "./relevance";

export const NEWEST_TUNING = {
  /** A newer passage takes the lead when it scores at least this share of the best. */
  contender: 0.8,
  /** Two passages are about the same subject when they share this much of the larger one's matched subject weight. */
  sameSubject: 0.8,
  /** Superseded memories named at most. */
  maxSuperseded: 2,
} as const;

const CLEARED =
  /\b(?:no longer blocked|unblocked|resolved|closed both|went live|is live|now live|is no longer|cleared|lifted)\b/i;
const BLOCKED = /\b(?:blocked|blocking|blocker|stuck|waits? (?:on|for)|at risk)\b/i;

const EXPLAINS = /^\s*why\b|\b(?:because|the reason|was caused by|traces? back to)\b/i;

export type Polarity = "blocked" | "cleared" | null;

export function polarity(text: string): Polarity {
  if (CLEARED.test(text)) return "cleared";
  return BLOCKED.test(text) ? "blocked" : null;
}

/** The subject terms a passage states by their own words or its tags (any date answers "when"; a model's name covers every line). */
function subjectTerms(question: Question, p: Passage): Set<number> {
  const out = new Set<number>();
  for (const [i, how] of p.satisfied) {
    if (question.terms[i]?.role !== "frame" && (how === "literal" || how === "tag")) out.add(i);
  }
  return out;
}

function sameSubject(question: Question, a: Passage, b: Passage): boolean {
  const weight = (terms: Iterable<number>) => [...terms].reduce((sum, i) => sum + (question.terms[i]?.weight ?? 0), 0);
  const ta = subjectTerms(question, a);
  const tb = subjectTerms(question, b);
  const larger = Math.max(weight(ta), weight(tb));
  return larger > 0 && weight([...ta].filter((i) => tb.has(i))) >= NEWEST_TUNING.sameSubject * larger;
}

/** ISO-ish dates compare as strings; a passage without one is the oldest. */
const dateOf = (p: Passage) => p.item.date ?? "";

/**
 * The older passage says something else: none of the values of the kind the question asks for
 * in common (another date, another price), or the opposite status (blocked, then cleared).
 * Saying more or less than the newer one is no disagreement.
 */
function disagrees(question: Question, newer: Passage, older: Passage): boolean {
  const asked = question.answerKind;
  // A memory that explains why ("Why the launch date moved again: …") states a reason, not a value
  // the newer one replaced: the dates it mentions are its evidence, not the subject's old value.
  if (asked && asked !== "reason" && !EXPLAINS.test(older.text)) {
    const keys = (p: Passage) => new Set(p.entities.filter((e) => e.kind === asked).map((e) => e.key));
    const a = keys(newer);
    const b = keys(older);
    if (a.size > 0 && b.size > 0 && ![...b].some((k) => a.has(k))) return true;
  }
  const a = polarity(newer.text);
  const b = polarity(older.text);
  return a !== null && b !== null && a !== b;
}

export interface Lead {
  lead: Passage;
  /** Older passages on the same subject that the lead contradicts, newest first. */
  superseded: Passage[];
}

/**
 * The passage to answer with, from passages ranked best first (at least one). `everything` is
 * every passage read, relevant or not: a newer memory saying the lead's blocker cleared counts
 * even when it names the blocker in other words.
 */
export function chooseLead(
  question: Question,
  ranked: readonly Passage[],
  everything: readonly Passage[] = ranked,
): Lead | null {
  const best = ranked[0];
  if (!best) return null;
  const cluster = ranked.filter(
    (p) =>
      p === best ||
      (p.item !== best.item &&
        p.answers &&
        p.score >= NEWEST_TUNING.contender * best.score &&
        sameSubject(question, p, best)),
  );
  const newest = cluster.reduce((a, b) => (dateOf(b) > dateOf(a) ? b : a));
  // The newest leads when the question asks how things stand, or when it says something else than the best.
  const lead =
    question.wantsLatest ||
    cluster.some((p) => p !== newest && dateOf(p) < dateOf(newest) && disagrees(question, newest, p))
      ? newest
      : best;
  const superseded = cluster
    .filter((p) => p.item !== lead.item && dateOf(p) < dateOf(lead) && disagrees(question, lead, p))
    .sort((a, b) => dateOf(b).localeCompare(dateOf(a)))
    .slice(0, NEWEST_TUNING.maxSuperseded);
  return clearedSince(question, everything, { lead, superseded });
}

/**
 * A blocker is never presented as current when a newer relevant memory says it cleared, even one
 * that names the blocker in other words ("no longer blocked" for "the pen test findings are blocking").
 */
function clearedSince(question: Question, ranked: readonly Passage[], chosen: Lead): Lead {
  const { lead } = chosen;
  // Only a question about how things stand or what blocks them: "What did the pen test find?" is
  // answered by the findings, even though they were fixed later.
  const asksStatus = question.wantsLatest || question.terms.some((t) => BLOCKED.test(t.word));
  if (!asksStatus || polarity(lead.text) !== "blocked") return chosen;
  const shares = (p: Passage) => [...subjectTerms(question, p)].some((i) => subjectTerms(question, lead).has(i));
  const cleared = ranked
    .filter((p) => p.item !== lead.item && polarity(p.text) === "cleared" && dateOf(p) > dateOf(lead) && shares(p))
    .reduce<Passage | null>((a, b) => (a === null || dateOf(b) > dateOf(a) ? b : a), null);
  if (!cleared) return chosen;
  return { lead: cleared, superseded: [lead, ...chosen.superseded].slice(0, NEWEST_TUNING.maxSuperseded) };
}
