/**
 * The curation loop's run inputs: re-run a run with edited inputs, skill and mental models (read
 * as a draft), save those edits, or fork it from an iteration; and what the re-run drawer is
 * filled with.
 */
import { z } from "zod";
import { Budget, RunMode, RunStatus, Scope } from "@/lib/reflect/domain";
import { LIMITS, Question, underLimit } from "./fields";
import { MentalModel, StaleOverride } from "./mental-models";

export const MentalModelEdit = z.object({
  id: z.string().min(1),
  /** The version the edit was based on; a newer one saved meanwhile is a conflict. */
  expectedVersion: z.number().int().positive(),
  /** New content; omit to keep it. */
  content: z
    .string()
    .trim()
    .min(1, "content cannot be empty")
    .max(LIMITS.contentChars, underLimit("content", LIMITS.contentChars))
    .optional(),
  /** New override; omit to keep it, null to clear it. */
  staleOverride: StaleOverride.optional(),
});

export const RerunInput = z.object({
  parentRunId: z.string().min(1),
  question: Question,
  budget: Budget,
  mode: RunMode,
  scope: Scope,
  mission: z
    .string()
    .trim()
    .min(1, "the mission cannot be empty")
    .max(LIMITS.missionChars, underLimit("mission", LIMITS.missionChars))
    .optional(),
  disposition: z.array(z.string().trim().min(1).max(LIMITS.wordChars)).max(LIMITS.dispositionWords).optional(),
  /** The skill version the mission/disposition edit was based on. */
  skillExpectedVersion: z.number().int().positive().optional(),
  mentalModelEdits: z.array(MentalModelEdit).default([]),
});
export type RerunInput = z.input<typeof RerunInput>;

/** "Save these changes" from the re-run drawer: exactly these edits, as new versions. */
export const SaveRerunChangesInput = RerunInput.pick({
  parentRunId: true,
  mission: true,
  disposition: true,
  skillExpectedVersion: true,
  mentalModelEdits: true,
});
export type SaveRerunChangesInput = z.input<typeof SaveRerunChangesInput>;

/** What "Save these changes" saved, each as its new version. */
export const SavedChanges = z.object({
  saved: z.array(
    z.object({
      kind: z.enum(["skill", "mental model"]),
      id: z.string(),
      name: z.string(),
      version: z.number().int(),
    }),
  ),
});
export type SavedChanges = z.infer<typeof SavedChanges>;

export const ForkInput = z.object({
  parentRunId: z.string().min(1),
  forkAt: z.number().int().min(0),
});
export type ForkInput = z.input<typeof ForkInput>;

/** What the re-run drawer and the fork control are filled with: the run's inputs as they were, the models it read as they are now. */
export const RerunContext = z.object({
  run: z.object({
    id: z.string(),
    bankId: z.string(),
    question: z.string(),
    budget: Budget,
    mode: RunMode,
    scope: z.string(),
    status: RunStatus,
    iterations: z.number().int(),
    parentRunId: z.string().nullable(),
  }),
  /** The skill as the run used it, and the version it is at now. */
  skill: z
    .object({
      id: z.string(),
      name: z.string(),
      version: z.number().int(),
      mission: z.string(),
      disposition: z.array(z.string()),
      currentVersion: z.number().int().nullable(),
      /** The saved skill's text now (null when it was deleted): what "Save these changes" would replace. */
      savedMission: z.string().nullable(),
      savedDisposition: z.array(z.string()).nullable(),
    })
    .nullable(),
  mentalModels: z.array(
    MentalModel.pick({
      id: true,
      name: true,
      content: true,
      version: true,
      staleOverride: true,
      isStale: true,
      stalenessReason: true,
      usable: true,
    }).extend({
      versionSeen: z.number().int().nullable(),
      /** The unsaved draft of this model the run read (a re-run or experiment), if it read one. */
      draft: z.object({ content: z.string(), staleOverride: StaleOverride, baseVersion: z.number().int() }).nullable(),
    }),
  ),
  scopes: z.array(z.string()),
});
export type RerunContext = z.infer<typeof RerunContext>;
