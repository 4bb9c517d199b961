/**
 * LoCoMo → this project's memory: one bank per conversation. Every dialog turn is a raw fact with
 * its speaker, session and position, dated by its session (`occurredAt`); a shared photo's caption
 * is part of the turn's text, as an image captioner would put it in a chat log. LoCoMo's own
 * observation annotations become observations citing their turns, and its session summaries can
 * become mental models. The data has a few malformed ids (evidence `"D"`, `"D9:12; D10:11"`, ids
 * that name no turn): each is repaired or dropped and reported, never silently.
 * Pure: no database, no file system (the caller reads the file).
 */
import type { Bundle } from "@/lib/contracts/bundle";
import {
  LOCOMO_CATEGORIES,
  type LocomoCategory,
  LocomoFile,
  type LocomoSample,
  type LocomoTurn,
} from "@/lib/contracts/locomo";
import { SUITE_LIMITS, type SuiteQuestion } from "@/lib/contracts/suites";
import { MONTH_NAMES } from "@/lib/reflect/dates";

export interface LocomoSession {
  /** 1, 2, … as LoCoMo numbers them. */
  index: number;
  /** `session_<index>`: the facts' `sessionId`. */
  id: string;
  /** The session's start, ISO-8601 UTC (LoCoMo gives local times without a zone: read as UTC). */
  date: string;
  /** As written in the data, e.g. "1:56 pm on 8 May, 2023". */
  dateText: string;
  turns: LocomoTurn[];
}

export interface LocomoItem {
  /** 1-based, in the data's order. */
  index: number;
  question: string;
  /** The gold answer; null for adversarial questions. */
  answer: string | null;
  /** Dialog ids (fact ids), after repair. */
  evidence: string[];
  category: LocomoCategory;
  categoryName: (typeof LOCOMO_CATEGORIES)[LocomoCategory];
  adversarialAnswer: string | null;
}

export interface LocomoRepair {
  /** Where in the sample: `qa[12].evidence[0]`, `observation.session_3_observation.Jon[2]`. */
  path: string;
  value: string;
  action: "split" | "fixed" | "dropped";
  /** What it became (split or fixed), or why it was dropped. */
  detail: string;
}

export interface LocomoConversation {
  sampleId: string;
  speakers: [string, string];
  sessions: LocomoSession[];
  items: LocomoItem[];
  observations: { id: string; speaker: string; text: string; sourceFactIds: string[]; session: number }[];
  summaries: { session: number; text: string }[];
  repairs: LocomoRepair[];
}

const MONTHS = MONTH_NAMES.map((m) => m.toLowerCase());

/** "1:56 pm on 8 May, 2023" → "2023-05-08T13:56:00.000Z"; null when it does not read as such. */
export function parseLocomoDate(text: string): string | null {
  const m = text.trim().match(/^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})$/i);
  if (!m) return null;
  const [, h, min, ampm, day, monthName, year] = m;
  const month = MONTHS.indexOf(monthName!.toLowerCase());
  if (month < 0) return null;
  if (Number(h) < 1 || Number(h) > 12 || Number(min) > 59) return null;
  const hour = (Number(h) % 12) + (ampm!.toLowerCase() === "pm" ? 12 : 0);
  const date = new Date(Date.UTC(Number(year), month, Number(day), hour, Number(min)));
  // A day the month does not have ("31 February") is not a date, not 2 March.
  if (Number.isNaN(date.getTime()) || date.getUTCDate() !== Number(day)) return null;
  return date.toISOString();
}

/** A turn's text as stored: what was said, and a shared photo's caption after it. */
export function turnText(turn: LocomoTurn): string {
  const caption = turn.blip_caption?.trim();
  const said = turn.text.trim();
  if (!caption) return said;
  return said ? `${said} [shares ${caption}]` : `[shares ${caption}]`;
}

const DIA_ID = /^D(\d+):(\d+)$/;

/**
 * A list of dialog ids as the data writes it, checked against the turns: "D8:6; D9:17" and
 * "D26:14, D26:34" are split, "D:11:26" becomes "D11:26" when that turn exists, anything else that
 * names no turn is dropped. Every change is reported.
 */
function repairIds(
  raw: readonly string[],
  known: ReadonlySet<string>,
  path: string,
  repairs: LocomoRepair[],
): string[] {
  const out: string[] = [];
  raw.forEach((value, i) => {
    const at = `${path}[${i}]`;
    const parts = value
      .split(/[;,]/)
      .map((p) => p.trim())
      .filter(Boolean);
    if (parts.length > 1) repairs.push({ path: at, value, action: "split", detail: parts.join(" | ") });
    for (const part of parts.length > 0 ? parts : [value]) {
      if (known.has(part)) {
        out.push(part);
        continue;
      }
      const fixed = part.replace(/^D:(\d+):(\d+)$/, "D$1:$2").replace(/\s+/g, "");
      if (fixed !== part && known.has(fixed)) {
        repairs.push({ path: at, value: part, action: "fixed", detail: fixed });
        out.push(fixed);
      } else {
        repairs.push({ path: at, value: part, action: "dropped", detail: "names no turn of this conversation" });
      }
    }
  });
  return [...new Set(out)];
}

function sessionsOf(sample: LocomoSample, repairs: LocomoRepair[]): LocomoSession[] {
  const conv = sample.conversation as Record<string, unknown>;
  const indexes = Object.keys(conv)
    .map((k) => k.match(/^session_(\d+)$/)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  const sessions: LocomoSession[] = [];
  const seen = new Set<string>();
  for (const index of indexes) {
    const turns = conv[`session_${index}`];
    const dateText = String(conv[`session_${index}_date_time`] ?? "");
    const date = parseLocomoDate(dateText);
    if (!Array.isArray(turns)) continue; // refused by the file's schema (LocomoConversation)
    if (!date) {
      repairs.push({
        path: `conversation.session_${index}_date_time`,
        value: dateText,
        action: "dropped",
        detail: "not a date this importer reads; the session's turns are undated",
      });
    }
    sessions.push({
      index,
      id: `session_${index}`,
      date: date ?? "",
      dateText,
      turns: storedTurns(turns as LocomoTurn[], `conversation.session_${index}`, seen, repairs),
    });
  }
  return sessions;
}

/**
 * The turns that become facts: a turn with nothing said or shown, or a second turn with an id
 * already used, is dropped and reported (the first turn with an id is kept).
 */
function storedTurns(turns: LocomoTurn[], path: string, seen: Set<string>, repairs: LocomoRepair[]): LocomoTurn[] {
  return turns.filter((turn, i) => {
    const at = `${path}[${i}]`;
    if (!turnText(turn)) {
      repairs.push({ path: at, value: turn.dia_id, action: "dropped", detail: "the turn has no text" });
      return false;
    }
    if (seen.has(turn.dia_id)) {
      repairs.push({
        path: at,
        value: turn.dia_id,
        action: "dropped",
        detail: "a second turn with this id; the first is kept",
      });
      return false;
    }
    seen.add(turn.dia_id);
    return true;
  });
}

/** Reads one sample (already validated by `LocomoFile`). */
export function readLocomoSample(sample: LocomoSample): LocomoConversation {
  const repairs: LocomoRepair[] = [];
  const sessions = sessionsOf(sample, repairs);
  const known = new Set(sessions.flatMap((s) => s.turns.map((t) => t.dia_id)));
  const items: LocomoItem[] = sample.qa.map((q, i) => {
    const category = q.category as LocomoCategory;
    return {
      index: i + 1,
      question: q.question.trim(),
      answer: q.answer === null || q.answer === undefined ? null : String(q.answer),
      evidence: repairIds(q.evidence, known, `qa[${i}].evidence`, repairs),
      category,
      categoryName: LOCOMO_CATEGORIES[category],
      adversarialAnswer:
        q.adversarial_answer === null || q.adversarial_answer === undefined ? null : String(q.adversarial_answer),
    };
  });
  const observations: LocomoConversation["observations"] = [];
  for (const [key, bySpeaker] of Object.entries(sample.observation ?? {})) {
    const session = Number(key.match(/^session_(\d+)_observation$/)?.[1] ?? Number.NaN);
    if (!Number.isFinite(session)) continue;
    for (const [speaker, list] of Object.entries(bySpeaker)) {
      list.forEach(([first, source], i) => {
        const path = `observation.${key}.${speaker}[${i}]`;
        const text = typeof first === "string" ? first : "";
        if (!text.trim()) {
          repairs.push({ path, value: text, action: "dropped", detail: "the observation has no text" });
          return;
        }
        const sourceFactIds = repairIds(Array.isArray(source) ? source : [source ?? ""], known, path, repairs);
        if (sourceFactIds.length === 0) {
          repairs.push({
            path,
            value: text.slice(0, 80),
            action: "dropped",
            detail: "the observation cites no turn of this conversation",
          });
          return;
        }
        observations.push({
          id: `O${session}:${speaker}:${i + 1}`,
          speaker,
          text: text.trim(),
          sourceFactIds,
          session,
        });
      });
    }
  }
  const summaries = Object.entries(sample.session_summary ?? {})
    .map(([key, text]) => ({ session: Number(key.match(/^session_(\d+)_summary$/)?.[1] ?? Number.NaN), text }))
    .filter((s) => Number.isFinite(s.session) && s.text.trim())
    .sort((a, b) => a.session - b.session);
  const conv = sample.conversation;
  return {
    sampleId: sample.sample_id,
    speakers: [conv.speaker_a, conv.speaker_b],
    sessions,
    items,
    observations,
    summaries,
    repairs,
  };
}

/** Parses a LoCoMo file's JSON (throws the zod error of a file that is not LoCoMo's shape). */
export function readLocomoFile(json: unknown): LocomoConversation[] {
  return LocomoFile.parse(json).map(readLocomoSample);
}

export interface LocomoBankOptions {
  /** Bank id prefix (default "locomo-"): the bank is `<prefix><sample_id>`. */
  prefix?: string;
  /**
   * Session summaries as mental models: `fresh` (refreshed after the last turn, so the freshness
   * check finds nothing newer), `stale` (never refreshed), or left out (default).
   */
  summaries?: "fresh" | "stale" | null;
  /** A shared photo's caption in its turn's text (default true). */
  captions?: boolean;
  /** The suite of the conversation's questions (default true), each passing at this F1 (default 0.5). */
  suite?: boolean;
  minF1?: number;
}

export const DEFAULT_MIN_F1 = 0.5;

/**
 * A question as a suite question, meaning what LoCoMo means: the gold answer reached (token F1 of
 * the answer's first line at least `minF1`; a multi-hop answer's comma-separated parts each scored,
 * an open-domain answer up to its first ";") and one of its evidence turns cited; an adversarial
 * question declined. Tagged with its category. Null for a question that cannot be expressed (a
 * gold answer or question over the suite limits), which the caller reports.
 */
export function locomoSuiteQuestion(item: LocomoItem, minF1 = DEFAULT_MIN_F1): SuiteQuestion | null {
  const tags = [item.categoryName];
  const base = { question: item.question, skill: LOCOMO_SKILL.name, tags };
  if (item.category === 5) return { ...base, expect: { abstains: true } };
  if (item.answer === null) return null;
  const gold = item.category === 3 ? (item.answer.split(";")[0] ?? "").trim() : item.answer.trim();
  const parts =
    item.category === 1
      ? gold
          .split(",")
          .map((p) => p.trim())
          .filter(Boolean)
      : [gold];
  if (parts.length === 0 || parts.length > SUITE_LIMITS.listItems) return null;
  if (parts.some((p) => p.length > SUITE_LIMITS.phraseChars) || item.question.length > 4000) return null;
  const evidence = item.evidence.slice(0, SUITE_LIMITS.listItems);
  return {
    ...base,
    expect: {
      answer: parts.length === 1 ? parts[0]! : parts,
      minF1,
      ...(evidence.length > 0 ? { mustCiteAny: evidence } : {}),
    },
  };
}

export function locomoSuiteName(sampleId: string): string {
  return `locomo-${sampleId}`.replace(/[^A-Za-z0-9_.:-]+/g, "-");
}

/**
 * The skill every imported conversation gets: answer what is asked, shortly, from what was said.
 * Its output format asks for the short answer alone on the first line (a date, a name, a number or
 * a phrase), which is also what LoCoMo scores.
 */
export const LOCOMO_SKILL: Bundle["skills"][number] = {
  id: "skill-qa",
  name: "qa",
  mission:
    'Answer the question about this conversation with exactly what it asks for: a date for when, a name for who, a number for how many, a short phrase for what, which or where. Take dates from what was said and when it was said ("yesterday" in a conversation of 8 May 2023 is 7 May 2023). If the conversation does not say, or says it of someone else, answer that it is not mentioned in the conversation.',
  disposition: ["concise", "literal", "evidence-first"],
  retrieval: { tags: [], types: ["observation", "episodic"], scope: "personal" },
  budget: "mid",
  anchorEvery: 4,
  outputFormat: "short answer: the answer alone on the first line, then the lines of the conversation it comes from",
  answerFormat: "prose",
  version: 1,
};

/** `<prefix><sample_id>` as a bank id (a lowercase slug: "Conv 26" → "conv-26"). */
export function locomoBankId(sampleId: string, prefix = "locomo-"): string {
  return `${prefix}${sampleId}`
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^[-_]+/, "");
}

const dayOf = (iso: string) =>
  iso
    ? new Date(iso).toLocaleDateString("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" })
    : "";

/** The conversation as a bank bundle (no suites: see the suite builder). */
export function locomoBundle(conv: LocomoConversation, options: LocomoBankOptions = {}): Bundle {
  const bankId = locomoBankId(conv.sampleId, options.prefix);
  const sessionDate = new Map(conv.sessions.map((s) => [s.index, s.date]));
  const facts: Bundle["facts"] = [];
  const seen = new Set<string>();
  for (const session of conv.sessions) {
    session.turns.forEach((turn, i) => {
      const text = options.captions === false ? turn.text.trim() : turnText(turn);
      if (!text || seen.has(turn.dia_id)) return;
      seen.add(turn.dia_id);
      const position = Number(turn.dia_id.match(DIA_ID)?.[2] ?? i + 1);
      // Undated sessions still need a recorded time: the epoch says "unknown" without inventing one.
      const at = session.date || new Date(0).toISOString();
      facts.push({
        id: turn.dia_id,
        text,
        kind: "experience",
        tags: [],
        scope: "personal",
        occurredAt: session.date || null,
        recordedAt: at,
        updatedAt: at,
        documentId: null,
        speaker: turn.speaker,
        sessionId: session.id,
        position,
      });
    });
  }
  const lastTurn =
    facts
      .map((f) => f.recordedAt)
      .sort()
      .at(-1) ?? "";
  const observations: Bundle["observations"] = conv.observations
    .filter((o) => o.sourceFactIds.length > 0)
    .map((o) => ({
      id: o.id.replace(/[^A-Za-z0-9_.:-]+/g, "-"),
      text: o.text,
      tags: [],
      scope: "personal",
      sourceFactIds: o.sourceFactIds,
      updatedAt: sessionDate.get(o.session) || lastTurn || new Date(0).toISOString(),
    }));
  const mentalModels: Bundle["mentalModels"] = options.summaries
    ? conv.summaries.map((s) => {
        const date = sessionDate.get(s.session) ?? "";
        return {
          id: `session-${s.session}-summary`,
          name: `Session ${s.session} summary${date ? ` (${dayOf(date)})` : ""}`,
          sourceQuery: `What happened in session ${s.session}?`,
          content: s.text.trim(),
          tags: [],
          refreshedAt: options.summaries === "fresh" ? lastTurn || null : null,
          staleOverride: null,
          version: 1,
          basedOnIds: [],
          updatedAt: null,
          history: [],
        };
      })
    : [];
  const suites: Bundle["suites"] =
    options.suite === false
      ? []
      : [
          {
            name: locomoSuiteName(conv.sampleId),
            description: `LoCoMo ${conv.sampleId}: every question of the conversation, tagged by category (${Object.values(LOCOMO_CATEGORIES).join(", ")}). A question passes when its answer reaches the gold answer (F1 ≥ ${options.minF1 ?? DEFAULT_MIN_F1}) and cites one of its evidence turns; an adversarial one when it declines.`,
            questions: conv.items.flatMap((item) => {
              const q = locomoSuiteQuestion(item, options.minF1);
              return q ? [q] : [];
            }),
          },
        ];
  return {
    version: 1,
    bank: { id: bankId, name: `LoCoMo ${conv.sampleId}: ${conv.speakers.join(" & ")}`, permittedTeams: [] },
    facts,
    observations,
    mentalModels,
    skills: [LOCOMO_SKILL],
    suites,
  };
}

/** Questions the suite could not hold (over a limit), as repairs: never dropped silently. */
export function unsuitedQuestions(conv: LocomoConversation): LocomoRepair[] {
  return conv.items.flatMap((item) =>
    locomoSuiteQuestion(item) === null
      ? [
          {
            path: `qa[${item.index - 1}]`,
            value: item.question.slice(0, 80),
            action: "dropped" as const,
            detail: item.answer === null ? "no gold answer outside category 5" : "over a suite limit",
          },
        ]
      : [],
  );
}
