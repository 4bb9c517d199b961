/**
 * Mental-model drafts: edits (content, staleness override) that runs read without anything being
 * saved — an experiment's draft and a re-run's. Each run records the drafts it read (which model,
 * the text and staleness, on which saved version), so it is badged `draft` wherever it shows.
 */
import type { Db } from "@/db/client";
import { getMentalModel, previewMentalModel } from "@/db/queries/mental-models";
import { AppError } from "@/lib/contracts/errors";
import { isUsableContent, type MemoryPort, type MentalModelDraftRead } from "@/lib/reflect";
import { mentalModelProbeText } from "@/lib/reflect/probe";

export interface MentalModelDraftEdit {
  id: string;
  content?: string;
  staleOverride?: "stale" | "fresh" | null;
  /** The version the edit was made on; a model saved since is a `conflict` (the draft would hide that save). */
  expectedVersion?: number;
}

/**
 * The mental models as the edits would have them (staleness recomputed), as each run records
 * them. `fieldOf(i)` names the input field of edit i in a `not_found`.
 */
export async function mentalModelDraftsOf(
  db: Db,
  bankId: string,
  edits: readonly MentalModelDraftEdit[],
  fieldOf: (i: number) => string,
): Promise<MentalModelDraftRead[]> {
  const out: MentalModelDraftRead[] = [];
  for (const [i, edit] of edits.entries()) {
    const current = await getMentalModel(db, bankId, edit.id);
    if (!current) {
      throw new AppError("not_found", `mental model ${edit.id} not found in bank ${bankId}`, {
        fieldErrors: { [fieldOf(i)]: ["unknown mental model"] },
      });
    }
    if (edit.expectedVersion !== undefined && edit.expectedVersion !== current.version) {
      throw new AppError(
        "conflict",
        `mental model ${current.name} was saved as version ${current.version} after you opened it at version ${edit.expectedVersion}; reload and try again`,
        { current },
      );
    }
    const d = await previewMentalModel(db, current, edit);
    out.push({
      id: d.id,
      name: d.name,
      baseVersion: current.version,
      content: d.content,
      staleOverride: d.staleOverride,
      isStale: d.isStale,
      stalenessReason: d.stalenessReason,
    });
  }
  return out;
}

/**
 * What the runs read with the drafts applied: the hits keep their rank (search ranks the saved
 * text), and carry the draft's content and staleness — exactly what each run records.
 */
export function overlayMentalModels(drafts: readonly MentalModelDraftRead[]) {
  if (drafts.length === 0) return undefined;
  const byId = new Map(drafts.map((d) => [d.id, d]));
  return (memory: MemoryPort): MemoryPort => ({
    ...memory,
    async searchMentalModels(q) {
      const hits = await memory.searchMentalModels(q);
      return hits.map((hit) => {
        const d = byId.get(hit.id);
        return d
          ? {
              ...hit,
              content: d.content,
              isStale: d.isStale,
              stalenessReason: d.stalenessReason,
              usable: isUsableContent(d.content),
            }
          : hit;
      });
    },
    // The missed-evidence probe reads the drafts' text too.
    probeSearch:
      memory.probeSearch &&
      (async (tier, q) => {
        const hits = await memory.probeSearch!(tier, q);
        if (tier !== "mental_models") return hits;
        return hits.map((hit) => {
          const d = byId.get(hit.id);
          return d ? { ...hit, text: mentalModelProbeText(d) } : hit;
        });
      }),
  });
}
