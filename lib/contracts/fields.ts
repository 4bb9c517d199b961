/**
 * Field schemas several contracts share, and the one set of limits (SECURITY.md): the API, the
 * editors, the CLI and MCP all read them from here, so whatever one accepts the others can save.
 */
import { z } from "zod";

export const LIMITS = {
  questionChars: 4000,
  /** A fact's text (API and MCP retain). */
  factChars: 20_000,
  /** A mental model's content. */
  contentChars: 50_000,
  nameChars: 200,
  skillNameChars: 100,
  missionChars: 4000,
  outputFormatChars: 2000,
  dispositionWords: 20,
  wordChars: 100,
  tagChars: 100,
  tags: 50,
  idChars: 200,
  /** A fact's source document reference (a path, a URL, an id). */
  documentIdChars: 2000,
  recallQueryChars: 1000,
  searchChars: 500,
} as const;

export const MAX_QUESTION_CHARS = LIMITS.questionChars;

const thousands = (n: number) => n.toLocaleString("en-US");

/** "keep the question under 4,000 characters": the one wording of a length limit. */
export function underLimit(what: string, max: number): string {
  return `keep the ${what} under ${thousands(max)} characters`;
}

export const Question = z
  .string()
  .trim()
  .min(1, "ask a question")
  .max(LIMITS.questionChars, `oversize question: ${underLimit("question", LIMITS.questionChars)}`);

/**
 * A record id: a slug of letters, digits and `_ . : -`, starting with a letter or digit, so never
 * `.` or `..` (a path segment that names no record) and never a space or a slash.
 */
export const SLUG_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;
export const Id = z
  .string()
  .min(1)
  .max(LIMITS.idChars)
  // Not trimmed: " x " is refused by name, never quietly saved as "x".
  .refine((v) => v.trim() === v, "an id has no spaces before or after it")
  .regex(SLUG_PATTERN, "an id is a slug: letters, digits and _ . : - (starting with a letter or digit)");
export const Tags = z
  .array(z.string().trim().min(1).max(LIMITS.tagChars))
  .max(LIMITS.tags, `at most ${LIMITS.tags} tags`);
export const IsoTime = z.iso.datetime({ offset: true });

/**
 * Where a fact sits in a conversation (docs/engine.md#memory-model): who said it, the session (or document) it belongs
 * to and its order there. All optional; the session's date is the fact's `occurredAt`. Neighbouring
 * turns (same session, adjacent positions) come back with a search hit as context.
 */
export const ConversationFields = {
  speaker: z
    .string()
    .trim()
    .min(1)
    .max(LIMITS.nameChars)
    .nullable()
    .optional()
    .meta({ description: "who said or wrote it (a conversation's speaker)" }),
  sessionId: z
    .string()
    .trim()
    .min(1)
    .max(LIMITS.idChars)
    .nullable()
    .optional()
    .meta({ description: "the conversation session or document it belongs to" }),
  position: z
    .number()
    .int()
    .min(0)
    .max(1_000_000_000)
    .nullable()
    .optional()
    .meta({ description: "its order within the session (needs sessionId)" }),
};

/** A position orders turns within a session: without a session it orders nothing. */
export function positionNeedsSession(
  fact: { sessionId?: string | null; position?: number | null },
  ctx: z.core.$RefinementCtx,
): void {
  if (fact.position !== undefined && fact.position !== null && !fact.sessionId) {
    ctx.addIssue({ code: "custom", path: ["position"], message: "a position needs a sessionId" });
  }
}

/** The bank an MCP tool works on when the agent names none. */
export const DEFAULT_MCP_BANK = "demo";
export const McpBank = z.string().min(1).optional().describe(`memory bank id (default "${DEFAULT_MCP_BANK}")`);
