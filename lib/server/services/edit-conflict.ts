import { AppError, isAppError } from "@/lib/contracts/errors";

/**
 * A stale save in an editor: nothing was written. The error carries the newer record as the
 * editor shows it (null when it was deleted), so the editor can show what changed.
 */
export function editConflict<T extends { version: number }>(
  kind: "mental model" | "skill",
  expectedVersion: number,
  current: T | null,
): AppError<"conflict"> {
  const message = current
    ? `This ${kind} was saved by someone else as version ${current.version} while you were editing version ${expectedVersion}. Nothing was saved: compare with the newer version and load it to continue.`
    : `This ${kind} was deleted by someone else while you were editing it. Nothing was saved.`;
  return new AppError("conflict", message, { current });
}

/**
 * Runs the store's save; when the store reports a conflict (a save that raced this one), throws
 * the editor's conflict with the record reloaded as the editor shows it.
 */
export async function saveOrConflict<T, V extends { version: number }>(
  kind: "mental model" | "skill",
  expectedVersion: number,
  save: () => Promise<T>,
  reload: () => Promise<V | null>,
): Promise<T> {
  try {
    return await save();
  } catch (err) {
    if (isAppError(err, "conflict")) throw editConflict(kind, expectedVersion, await reload());
    throw err;
  }
}
