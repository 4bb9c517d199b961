/**
 * Skills: the record (API and editor alike), its versions, and the inputs that change it (API
 * create/update, the editor's draft, "try this draft"). One set of field rules serves them all,
 * so whatever the API accepts the editor can save again.
 */
import { z } from "zod";
import { AnswerFormat, Budget, RetrievalType, Scope } from "@/lib/reflect/domain";
import type { VersionEntry } from "@/lib/text/version-changes";
import { Id, LIMITS, Question, Tags, underLimit } from "./fields";

export const Skill = z.object({
  id: z.string(),
  bankId: z.string(),
  name: z.string(),
  mission: z.string(),
  disposition: z.array(z.string()),
  retrieval: z.object({ tags: z.array(z.string()), types: z.array(RetrievalType), scope: z.string() }),
  budget: Budget,
  anchorEvery: z.number().int(),
  outputFormat: z.string(),
  /** `json` switches off the output guard's envelope check; `prose` (default) keeps it. */
  answerFormat: AnswerFormat,
  version: z.number().int(),
  updatedAt: z.string().nullable(),
});
export type Skill = z.infer<typeof Skill>;

export const SkillVersion = Skill.omit({ id: true, bankId: true, updatedAt: true }).extend({
  createdAt: z.string().nullable(),
});

export const SkillList = z.object({ skills: z.array(Skill) });
/** GET /api/v1/banks/{bank}/skills/{id}: the skill and every version, newest first. */
export const SkillWithHistory = z.object({ skill: Skill, versions: z.array(SkillVersion) });
export type SkillWithHistory = z.infer<typeof SkillWithHistory>;

/** The skill editor's page: the skill and its versions, each diffed against the one before. */
export const SkillPage = z.object({ skill: Skill, versions: z.array(z.custom<VersionEntry>()) });
export type SkillPage = z.infer<typeof SkillPage>;

/** Each field's rules, without defaults: an update applies only what it names. */
const SkillFieldRules = z.object({
  name: z
    .string()
    .trim()
    .min(1, "name the skill")
    .max(LIMITS.skillNameChars, underLimit("name", LIMITS.skillNameChars)),
  mission: z
    .string()
    .trim()
    .min(1, "write the mission")
    .max(LIMITS.missionChars, underLimit("mission", LIMITS.missionChars)),
  disposition: z
    .array(z.string().trim().min(1).max(LIMITS.wordChars))
    .max(LIMITS.dispositionWords, `at most ${LIMITS.dispositionWords} adjectives`),
  retrieval: z.strictObject({
    tags: Tags.default([]),
    types: z.array(RetrievalType).min(1, "pick at least one memory type"),
    scope: Scope.default("personal"),
  }),
  budget: Budget,
  anchorEvery: z.number().int().min(1, "at least 1").max(50, "at most 50"),
  outputFormat: z.string().trim().max(LIMITS.outputFormatChars, underLimit("output format", LIMITS.outputFormatChars)),
  answerFormat: AnswerFormat,
});

/** A new skill (and the editor's full draft): what it omits takes the default. */
const SkillFields = SkillFieldRules.extend({
  disposition: SkillFieldRules.shape.disposition.default([]),
  budget: Budget.default("mid"),
  anchorEvery: SkillFieldRules.shape.anchorEvery.default(4),
  outputFormat: SkillFieldRules.shape.outputFormat.default("markdown"),
  answerFormat: AnswerFormat.default("prose"),
});

export const CreateSkillBody = SkillFields.extend({ id: Id.optional() }).strict();

/** The skills page's "new skill": the API's create body, in a bank. */
export const NewSkillInput = z.object({ bankId: z.string().min(1), skill: CreateSkillBody });
export type NewSkillInput = z.input<typeof NewSkillInput>;

export const SkillRef = z.object({ bankId: z.string().min(1), id: z.string().min(1) });
export type SkillRef = z.input<typeof SkillRef>;
export const SkillDeleted = z.object({ deleted: z.literal(true) });
export type SkillDeleted = z.infer<typeof SkillDeleted>;

/** Omitted fields keep their current value (no defaults here: a default would overwrite them). */
export const UpdateSkillBody = SkillFieldRules.partial()
  .extend({
    expectedVersion: z.number().int().positive().meta({ description: "the version the edit is based on" }),
  })
  .strict();

/** The editor's save: every field, based on the version it loaded (the name is not editable there). */
export const SkillDraft = SkillFields.omit({ name: true }).extend({
  bankId: z.string().min(1),
  id: z.string().min(1),
  expectedVersion: z.number().int().min(1),
});
export type SkillDraft = z.input<typeof SkillDraft>;

/** "Try": run the unsaved draft on a question; nothing is saved. */
export const TrySkillInput = z.object({
  draft: SkillDraft,
  question: Question,
});
export type TrySkillInput = z.input<typeof TrySkillInput>;

/** The skill a run uses when it names none (when the bank has it; else the bank's first skill). */
export const DEFAULT_SKILL_NAME = "recap";

/** Of a bank's skills, the one a run without a skill uses. */
export function defaultSkillOf<S extends { name: string }>(skills: readonly S[]): S | null {
  return skills.find((s) => s.name === DEFAULT_SKILL_NAME) ?? skills[0] ?? null;
}
