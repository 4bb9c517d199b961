/**
 * Question suites (docs/experiments.md): a named, versioned list of questions for a bank, each with optional
 * expectations. The same question shape is one line of the JSONL import/export, an item of the
 * API body and of a bundle's `suites`, so whatever one accepts the others can save.
 */
import { z } from "zod";
import { Budget, RunMode, RunStatus, Scope } from "@/lib/reflect/domain";
import { Id, IsoTime, LIMITS, Question, SLUG_PATTERN, underLimit } from "./fields";

export const SUITE_LIMITS = {
  questions: 500,
  descriptionChars: 2000,
  /** One `contains` / `notContains` phrase. */
  phraseChars: 500,
  /** Ids or phrases per expectation list. */
  listItems: 50,
} as const;

/** A suite's name is its key in the bank (and in URLs and the CLI): a slug. */
export const SuiteName = z
  .string()
  .trim()
  .min(1, "name the suite")
  .max(LIMITS.nameChars, underLimit("suite name", LIMITS.nameChars))
  .regex(SLUG_PATTERN, "a suite name is a slug: letters, digits and _ . : - (starting with a letter or digit)");

const Phrase = z
  .string()
  .trim()
  .min(1, "a phrase cannot be empty")
  .max(SUITE_LIMITS.phraseChars, underLimit("phrase", SUITE_LIMITS.phraseChars));
const list = <T extends z.ZodType>(item: T) =>
  z.array(item).max(SUITE_LIMITS.listItems, `at most ${SUITE_LIMITS.listItems} entries`);

/** A gold answer: one text, or its parts (each scored on its own, as LoCoMo scores multi-hop answers). */
const GoldAnswer = z.union([
  z
    .string()
    .trim()
    .min(1, "give the answer")
    .max(SUITE_LIMITS.phraseChars, underLimit("answer", SUITE_LIMITS.phraseChars)),
  list(Phrase).min(1, "give at least one part"),
]);

/**
 * What a run must do for its question to pass; every key is optional and checked on its own (the
 * answer-scoring keys read `answer`). Normalisation and scoring: lib/experiments/answer-score.ts.
 */
export const Expectation = z
  .object({
    /** The run's status is one of these. */
    status: z.array(RunStatus).min(1, "name at least one status").optional(),
    /** Ids (any tier) the answer must cite. */
    mustCite: list(Id).optional(),
    /** Ids (any tier) the answer must not cite. */
    mustNotCite: list(Id).optional(),
    /** Phrases the answer must contain (case-insensitive). */
    contains: list(Phrase).optional(),
    /** Phrases the answer must not contain (case-insensitive). */
    notContains: list(Phrase).optional(),
    /** At most this many LLM calls. */
    maxLlmCalls: z.number().int().min(0).max(1000).optional(),
    /** At least one of these ids (any tier) is cited: benchmark evidence is usually any-of. */
    mustCiteAny: list(Id).min(1, "name at least one id").optional(),
    /** The gold answer that `minF1`, `containsAnswer` and `judge` read; parts when it has several. */
    answer: GoldAnswer.optional(),
    /** Token F1 (0–1) of the answer's first line against `answer`, as LoCoMo scores it. */
    minF1: z.number().min(0).max(1).optional(),
    /** The answer contains `answer` after normalisation (a date in any written form); false: it must not. */
    containsAnswer: z.boolean().optional(),
    /** The answer says the memory does not hold it and cites nothing (true), or answers (false). */
    abstains: z.boolean().optional(),
    /** An LLM grades the answer against `answer` (needs a real model; never passed without one). */
    judge: z.boolean().optional(),
  })
  .strict()
  .superRefine((e, ctx) => {
    for (const key of ["minF1", "containsAnswer", "judge"] as const) {
      if (e[key] !== undefined && e.answer === undefined) {
        ctx.addIssue({ code: "custom", path: [key], message: `${key} needs the gold answer in "answer"` });
      }
    }
  });
export type Expectation = z.infer<typeof Expectation>;
/** The keys checked as expectations, in the order they are reported (`answer` is their input, not one). */
export const EXPECTATION_KEYS = [
  "status",
  "mustCite",
  "mustCiteAny",
  "mustNotCite",
  "contains",
  "notContains",
  "minF1",
  "containsAnswer",
  "abstains",
  "judge",
  "maxLlmCalls",
] as const satisfies readonly (keyof Expectation)[];
export type ExpectationKey = (typeof EXPECTATION_KEYS)[number];

/** One question of a suite: one JSONL line. Omitted run inputs take the skill's defaults. */
export const SuiteQuestion = z
  .object({
    question: Question,
    skill: z
      .string()
      .trim()
      .min(1)
      .max(LIMITS.skillNameChars, underLimit("skill name", LIMITS.skillNameChars))
      .optional(),
    budget: Budget.optional(),
    mode: RunMode.optional(),
    scope: Scope.optional(),
    /** Labels to score the suite by (a benchmark's category): the scorecard has a row per tag. */
    tags: list(z.string().trim().min(1).max(LIMITS.tagChars)).optional(),
    expect: Expectation.optional(),
  })
  .strict();
export type SuiteQuestion = z.infer<typeof SuiteQuestion>;

export const SuiteQuestions = z
  .array(SuiteQuestion)
  .max(SUITE_LIMITS.questions, `at most ${SUITE_LIMITS.questions} questions in a suite`);

export const SuiteDescription = z
  .string()
  .trim()
  .max(SUITE_LIMITS.descriptionChars, underLimit("description", SUITE_LIMITS.descriptionChars));

export const Suite = z.object({
  bankId: z.string(),
  name: z.string(),
  description: z.string(),
  version: z.number().int(),
  questions: z.array(SuiteQuestion),
  updatedAt: z.string().nullable(),
});
export type Suite = z.infer<typeof Suite>;

export const SuiteSummary = Suite.pick({
  bankId: true,
  name: true,
  description: true,
  version: true,
  updatedAt: true,
}).extend({ questionCount: z.number().int() });
export type SuiteSummary = z.infer<typeof SuiteSummary>;
export const SuiteList = z.object({ suites: z.array(SuiteSummary) });

export const SuiteVersion = Suite.pick({ version: true, description: true, questions: true }).extend({
  createdAt: z.string().nullable(),
});
export type SuiteVersion = z.infer<typeof SuiteVersion>;
export const SuiteWithHistory = Suite.extend({ versions: z.array(SuiteVersion) });
export type SuiteWithHistory = z.infer<typeof SuiteWithHistory>;

/** Create (`expectedVersion` 0) or edit a suite; every save is a new version holding the whole list. */
export const SaveSuiteInput = z
  .object({
    bankId: Id,
    name: SuiteName,
    description: SuiteDescription.default(""),
    questions: SuiteQuestions,
    expectedVersion: z.number().int().min(0),
  })
  .strict();
export type SaveSuiteInput = z.input<typeof SaveSuiteInput>;

export const CreateSuiteBody = SaveSuiteInput.omit({ bankId: true, expectedVersion: true });
export const UpdateSuiteBody = SaveSuiteInput.omit({ bankId: true, name: true }).extend({
  expectedVersion: z.number().int().positive(),
});
export const SuiteParams = z.object({ bank: z.string().min(1), suite: SuiteName });

/** Appends one question to a suite (creating it when `expectedVersion` is 0): "Add to suite" on a run. */
export const AddToSuiteInput = z
  .object({
    bankId: Id,
    name: SuiteName,
    question: SuiteQuestion,
    expectedVersion: z.number().int().min(0),
  })
  .strict();
export type AddToSuiteInput = z.input<typeof AddToSuiteInput>;

/** A suite in a bank bundle. */
export const BundleSuite = z
  .object({
    name: SuiteName,
    description: SuiteDescription.default(""),
    questions: SuiteQuestions,
    version: z.number().int().positive().optional(),
    updatedAt: IsoTime.nullable().optional(),
  })
  .strict();
export type BundleSuite = z.infer<typeof BundleSuite>;

/** A JSONL document as text (the import body, the export). */
export const SuiteJsonl = z.string().max(5_000_000, "a JSONL document under 5 MB");
export const ImportSuiteBody = z.object({ jsonl: SuiteJsonl }).strict();
