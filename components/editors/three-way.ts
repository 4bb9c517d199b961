/**
 * Field-level three-way merge for an edit conflict: the version the editor loaded (base), the
 * unsaved edit (mine) and the newer saved version (theirs). When the fields I changed and the
 * fields they changed do not overlap, my changes re-apply on top of theirs; otherwise the
 * overlapping fields are named and nothing is merged.
 */
export type Merge<T> = { ok: true; merged: T; mine: (keyof T)[] } | { ok: false; overlap: (keyof T)[] };

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function threeWayMerge<T extends Record<string, unknown>>(base: T, mine: T, theirs: T): Merge<T> {
  const keys = Object.keys(base) as (keyof T)[];
  const changedByMe = keys.filter((k) => !same(mine[k], base[k]));
  const overlap = changedByMe.filter((k) => !same(theirs[k], base[k]) && !same(theirs[k], mine[k]));
  if (overlap.length > 0) return { ok: false, overlap };
  const merged = { ...theirs };
  for (const k of changedByMe) merged[k] = mine[k];
  return { ok: true, merged, mine: changedByMe };
}
