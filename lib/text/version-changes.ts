/**
 * What changed between two versions of a curated record (a mental model, a skill), field by field:
 * prose as a word or line diff, short values as before → after. The editors' version history and
 * "what changed since the run read it" are built from these.
 */

import { type DiffOp, diffLines, diffWords, hasChanges } from "./text-diff";
import { retrievalTypeLabel } from "./tier-label";

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

interface MentalModelVersionFields {
  name: string;
  sourceQuery: string;
  content: string;
  tags: readonly string[];
  staleOverride: string | null;
  refreshedAt: string | null;
  basedOnIds: readonly string[];
}

interface SkillVersionFields {
  mission: string;
  disposition: readonly string[];
  retrieval: { scope: string; tags: readonly string[]; types: readonly string[] };
  budget: string;
  anchorEvery: number;
  outputFormat: string;
  answerFormat: string;
}

function textChange(field: string, before: string, after: string, by: "lines" | "words"): FieldChange[] {
  if (before === after) return [];
  const ops = by === "lines" ? diffLines(before, after) : diffWords(before, after);
  return hasChanges(ops) ? [{ field, kind: "text", ops }] : [];
}

function valueChange(field: string, before: string, after: string): FieldChange[] {
  return before === after ? [] : [{ field, kind: "value", before, after }];
}

const list = (xs: readonly string[]) => (xs.length ? xs.join(", ") : "—");
const minute = (iso: string | null) => (iso ? iso.slice(0, 16).replace("T", " ") : "never");

export function mentalModelChanges(a: MentalModelVersionFields, b: MentalModelVersionFields): FieldChange[] {
  return [
    ...valueChange("name", a.name, b.name),
    ...textChange("source query", a.sourceQuery, b.sourceQuery, "words"),
    ...valueChange("tags", list(a.tags), list(b.tags)),
    ...valueChange("staleness override", a.staleOverride ?? "auto", b.staleOverride ?? "auto"),
    ...valueChange("refreshed", minute(a.refreshedAt), minute(b.refreshedAt)),
    ...valueChange("based on", list(a.basedOnIds), list(b.basedOnIds)),
    ...textChange("content", a.content, b.content, "lines"),
  ];
}

export function skillChanges(a: SkillVersionFields, b: SkillVersionFields): FieldChange[] {
  return [
    ...textChange("mission", a.mission, b.mission, "words"),
    ...valueChange("disposition", list(a.disposition), list(b.disposition)),
    ...valueChange("scope", a.retrieval.scope, b.retrieval.scope),
    ...valueChange("retrieval tags", list(a.retrieval.tags), list(b.retrieval.tags)),
    ...valueChange(
      "memory types",
      list(a.retrieval.types.map(retrievalTypeLabel)),
      list(b.retrieval.types.map(retrievalTypeLabel)),
    ),
    ...valueChange("budget", a.budget, b.budget),
    ...valueChange("anchor every", String(a.anchorEvery), String(b.anchorEvery)),
    ...textChange("output format", a.outputFormat, b.outputFormat, "words"),
    ...valueChange("answer format", a.answerFormat, b.answerFormat),
  ];
}

/** Versions newest first, each with its changes against the previous version. */
export function versionHistory<V extends { version: number; createdAt: string | null }>(
  versions: readonly V[],
  diff: (before: V, after: V) => FieldChange[],
): VersionEntry[] {
  return versions.map((v, i) => {
    const previous = versions[i + 1];
    return { version: v.version, createdAt: v.createdAt, changes: previous ? diff(previous, v) : [] };
  });
}
