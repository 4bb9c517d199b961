/**
 * Bank bundle (docs/cli.md): the portable JSON form of one bank. Import validates this schema plus
 * cross-references (duplicate ids, unknown source facts) and is atomic.
 */
import { z } from "zod";
import { AnswerFormat, Budget, RetrievalType, Scope } from "@/lib/reflect/domain";
import { ConversationFields, Id, IsoTime, LIMITS, positionNeedsSession } from "./fields";
import { BundleSuite } from "./suites";

/** A bundle is a file written elsewhere: its tag lists are not capped like an edit's. */
const Tags = z.array(z.string().trim().min(1).max(LIMITS.tagChars)).default([]);

export const BundleFact = z
  .strictObject({
    id: Id,
    text: z.string().trim().min(1),
    kind: z.enum(["world", "experience"]),
    tags: Tags,
    scope: Scope,
    occurredAt: IsoTime.nullable().optional(),
    recordedAt: IsoTime,
    /** Defaults to `recordedAt`, never to the import time. */
    updatedAt: IsoTime.optional(),
    documentId: z.string().min(1).nullable().optional(),
    ...ConversationFields,
  })
  .superRefine(positionNeedsSession);

export const BundleObservation = z.strictObject({
  id: Id,
  text: z.string().trim().min(1),
  tags: Tags,
  scope: Scope,
  sourceFactIds: z.array(Id).default([]),
  updatedAt: IsoTime,
});

const MentalModelState = z.strictObject({
  name: z.string().trim().min(1),
  sourceQuery: z.string(),
  content: z.string(),
  tags: Tags,
  refreshedAt: IsoTime.nullable().default(null),
  staleOverride: z.enum(["stale", "fresh"]).nullable().default(null),
});

export const BundleMentalModel = MentalModelState.extend({
  id: Id,
  version: z.number().int().positive().default(1),
  /** Memory ids the current content was based on. */
  basedOnIds: z.array(z.string()).default([]),
  /** When the current version was saved; defaults to `refreshedAt`, then the newest history entry. */
  updatedAt: IsoTime.nullable().default(null),
  /** Earlier versions, oldest first (optional; current state is the top-level fields). */
  history: z
    .array(
      MentalModelState.extend({
        version: z.number().int().positive(),
        /** Null when the version's time is unknown. */
        createdAt: IsoTime.nullable(),
        basedOnIds: z.array(z.string()).default([]),
      }),
    )
    .default([]),
});

export const BundleSkill = z.strictObject({
  id: Id,
  name: z.string().trim().min(1).max(LIMITS.skillNameChars),
  mission: z.string().trim().min(1),
  disposition: z.array(z.string().trim().min(1)).default([]),
  retrieval: z.strictObject({
    tags: Tags,
    types: z.array(RetrievalType).min(1),
    scope: Scope.default("personal"),
  }),
  budget: Budget.default("mid"),
  anchorEvery: z.number().int().min(1).max(50).default(4),
  outputFormat: z.string().default("markdown"),
  /** Bundles written before the field existed import as prose. */
  answerFormat: AnswerFormat.default("prose"),
  version: z.number().int().positive().default(1),
});

/** Every object refuses a field it does not know, by name (a misspelt key is never dropped silently). */
export const Bundle = z.strictObject({
  version: z.literal(1),
  bank: z.strictObject({
    id: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, "bank id must be a lowercase slug"),
    name: z.string().trim().min(1),
    permittedTeams: z.array(z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, "team id must be a lowercase slug")).default([]),
  }),
  facts: z.array(BundleFact).default([]),
  observations: z.array(BundleObservation).default([]),
  mentalModels: z.array(BundleMentalModel).default([]),
  skills: z.array(BundleSkill).default([]),
  /** Question suites (docs/experiments.md); bundles written before suites existed have no key and import as none. */
  suites: z.array(BundleSuite).default([]),
});
export type BundleInput = z.input<typeof Bundle>;
export type Bundle = z.output<typeof Bundle>;
