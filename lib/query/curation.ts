/**
 * The curation loop's contracts shared by server (lib/server/curation) and client (components/editors):
 * editor inputs as zod schemas, view models, links, and the save result that carries a conflict's newer record.
 */
import { z } from "zod";
import type { DiffOp } from "@/lib/timeline/text-diff";
import type { StalenessState } from "./memory";
import { ActionFailure } from "./unwrap";

const tagList = z.array(z.string().trim().min(1).max(60)).max(20, "at most 20 tags");

export const StaleOverrideChoice = z.enum(["auto", "stale", "fresh"]);
export type StaleOverrideChoice = z.infer<typeof StaleOverrideChoice>;

export const MentalModelDraft = z.object({
  bankId: z.string().min(1),
  /** Absent when creating: the id is a slug of the name. */
  id: z.string().min(1).optional(),
  /** The version the editor loaded; 0 to create. */
  expectedVersion: z.number().int().min(0),
  name: z.string().trim().min(1, "name the model").max(120, "keep the name under 120 characters"),
  sourceQuery: z.string().trim().min(1, "a refresh needs a source query").max(4000),
  content: z.string().max(50_000, "keep the content under 50,000 characters"),
  tags: tagList,
  staleOverride: StaleOverrideChoice,
});
export type MentalModelDraft = z.input<typeof MentalModelDraft>;

export const MentalModelRef = z.object({ bankId: z.string().min(1), id: z.string().min(1) });
export type MentalModelRef = z.input<typeof MentalModelRef>;

export const RefreshMentalModelInput = MentalModelRef.extend({ expectedVersion: z.number().int().min(1).optional() });
export type RefreshMentalModelInput = z.input<typeof RefreshMentalModelInput>;

const scope = z.string().regex(/^(personal|team:[a-z0-9][a-z0-9_-]*)$/, 'scope must be "personal" or "team:<id>"');

export const SkillDraft = z.object({
  bankId: z.string().min(1),
  id: z.string().min(1),
  expectedVersion: z.number().int().min(1),
  mission: z.string().trim().min(1, "write the mission").max(4000, "keep the mission under 4,000 characters"),
  disposition: z.array(z.string().trim().min(1).max(40)).max(12, "at most 12 adjectives"),
  retrieval: z.object({
    tags: tagList,
    types: z.array(z.enum(["observation", "episodic"])).min(1, "pick at least one memory type"),
    scope,
  }),
  budget: z.enum(["low", "mid", "high"]),
  anchorEvery: z.number().int().min(1, "at least 1").max(50, "at most 50"),
  outputFormat: z.string().trim().max(1000, "keep the output format under 1,000 characters"),
});
export type SkillDraft = z.input<typeof SkillDraft>;

export const TrySkillInput = z.object({
  draft: SkillDraft,
  question: z.string().trim().min(1, "ask a question to try the draft").max(4000),
});
export type TrySkillInput = z.input<typeof TrySkillInput>;

/** One field's change between a version and the one before it. */
export type FieldChange =
  | { field: string; kind: "text"; ops: DiffOp[] }
  | { field: string; kind: "value"; before: string; after: string };

export interface VersionEntry {
  version: number;
  createdAt: string | null;
  /** Empty for the first version (nothing to compare with). */
  changes: FieldChange[];
}

export interface MentalModelRow {
  id: string;
  name: string;
  state: StalenessState;
  reason: string;
  refreshedAt: string | null;
  tags: string[];
  version: number;
  /** Runs whose retrieval returned this model. */
  readBy: number;
}

export interface MentalModelDetail extends MentalModelRow {
  bankId: string;
  sourceQuery: string;
  content: string;
  staleOverride: "stale" | "fresh" | null;
  basedOnIds: string[];
  updatedAt: string | null;
}

export interface RunRef {
  id: string;
  question: string;
  status: string;
  createdAt: string;
}

export interface MentalModelPage {
  model: MentalModelDetail;
  versions: VersionEntry[];
  readers: RunRef[];
  refreshRuns: RunRef[];
  /** A version a run read (`?seen=N`), with what changed between it and the current version. */
  seen: { version: number; changes: FieldChange[] } | null;
}

export type RefreshOutcome =
  | { refreshed: true; runId: string; model: MentalModelDetail }
  | { refreshed: false; runId: string; reason: string };

export interface SkillDetail {
  bankId: string;
  id: string;
  name: string;
  mission: string;
  disposition: string[];
  retrieval: { tags: string[]; types: ("observation" | "episodic")[]; scope: string };
  budget: "low" | "mid" | "high";
  anchorEvery: number;
  outputFormat: string;
  version: number;
  updatedAt: string | null;
}

export interface SkillPage {
  skill: SkillDetail;
  versions: VersionEntry[];
}

type ActionError = { code: string; message: string; fieldErrors?: Record<string, string[]> };

/** A save's result; a conflict carries the newer record so the editor can show it. */
export type SaveResult<T> = { ok: true; data: T } | { ok: false; error: ActionError & { current?: T | null } };

export class EditConflict<T> extends ActionFailure {
  constructor(
    message: string,
    readonly current: T | null,
  ) {
    super("conflict", message);
    this.name = "EditConflict";
  }
}

/** Like `unwrap`, but a conflict throws `EditConflict` with the newer record. */
export async function unwrapSave<T>(result: Promise<SaveResult<T>>): Promise<T> {
  const r = await result;
  if (r.ok) return r.data;
  if (r.error.code === "conflict") throw new EditConflict(r.error.message, r.error.current ?? null);
  throw new ActionFailure(r.error.code, r.error.message, r.error.fieldErrors);
}

export function mentalModelHref(bankId: string, id: string): string {
  return `/mental-models/${encodeURIComponent(id)}?bank=${encodeURIComponent(bankId)}`;
}

export function skillHref(bankId: string, id: string): string {
  return `/skills/${encodeURIComponent(id)}?bank=${encodeURIComponent(bankId)}`;
}
