/**
 * LoCoMo's data file (Maharana et al., ACL 2024; `data/locomo10.json` of snap-research/LoCoMo), as
 * published: an array of samples, one long two-person conversation each, with its questions. The
 * schema reads what the importer uses and lets everything else through: it is someone else's
 * format, and a field we do not read is no reason to refuse a file. Ids and evidence lists are
 * checked (and repaired, with a report) by lib/experiments/locomo.ts, not here.
 */
import { z } from "zod";

export const LocomoTurn = z.looseObject({
  speaker: z.string().min(1),
  dia_id: z.string().min(1),
  text: z.string(),
  /** A shared photo, described by an image captioner. */
  blip_caption: z.string().optional(),
});
export type LocomoTurn = z.infer<typeof LocomoTurn>;

/** `speaker_a`, `speaker_b`, then `session_N` (turns) and `session_N_date_time` for N = 1, 2, … */
export const LocomoConversation = z
  .looseObject({ speaker_a: z.string().min(1), speaker_b: z.string().min(1) })
  .catchall(z.unknown())
  .superRefine((conv, ctx) => {
    // Each `session_N` is a list of turns: a turn the importer cannot read is refused with its path.
    for (const [key, value] of Object.entries(conv)) {
      if (!/^session_\d+$/.test(key)) continue;
      const turns = z.array(LocomoTurn).safeParse(value);
      for (const issue of turns.success ? [] : turns.error.issues.slice(0, 1)) {
        ctx.addIssue({ code: "custom", message: issue.message, path: [key, ...issue.path] });
      }
    }
  });

export const LocomoQuestion = z.looseObject({
  question: z.string().min(1),
  /** Absent on adversarial questions (category 5); a number for some counting questions. */
  answer: z.union([z.string(), z.number()]).nullish(),
  evidence: z.array(z.string()).default([]),
  category: z.number().int().min(1).max(5),
  /** Category 5: the wrong answer a careless reader gives (usually the other speaker's fact). */
  adversarial_answer: z.union([z.string(), z.number()]).nullish(),
});
export type LocomoQuestion = z.infer<typeof LocomoQuestion>;

/**
 * `session_N_observation`: per speaker, `[text, dia_id | dia_id[] | "D1:2, D1:3"]` pairs (an
 * array of two rather than a tuple: OpenAPI tools read `items`, not `prefixItems`).
 */
const ObservationPair = z
  .array(z.union([z.string(), z.array(z.string())]))
  .length(2, "an observation is [text, source dialog id(s)]")
  .refine((pair) => typeof pair[0] === "string", "an observation's first element is its text");
export const LocomoObservations = z.record(z.string(), z.record(z.string(), z.array(ObservationPair)));

export const LocomoSample = z.looseObject({
  sample_id: z.string().min(1),
  conversation: LocomoConversation,
  qa: z.array(LocomoQuestion).default([]),
  observation: LocomoObservations.optional(),
  session_summary: z.record(z.string(), z.string()).optional(),
});
export type LocomoSample = z.infer<typeof LocomoSample>;

export const LocomoFile = z.array(LocomoSample).min(1, "a LoCoMo file holds at least one conversation");

/** LoCoMo's question categories (the paper's numbering). */
export const LOCOMO_CATEGORIES = {
  1: "multi-hop",
  2: "temporal",
  3: "open-domain",
  4: "single-hop",
  5: "adversarial",
} as const;
export type LocomoCategory = keyof typeof LOCOMO_CATEGORIES;
