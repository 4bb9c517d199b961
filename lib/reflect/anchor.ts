/** The goal anchor (docs/engine.md#steering): a periodic request-scoped restatement of the original question. */

export const ANCHOR_PROGRESS_LIMIT = 500;

export function isAnchorIteration(iteration: number, every: number, isFinalForced: boolean): boolean {
  return iteration > 0 && iteration % every === 0 && !isFinalForced;
}

/** Cuts at code points (never inside a surrogate pair) and marks the cut with "…". */
export function truncateCodePoints(text: string, limit: number): string {
  const points = Array.from(text);
  return points.length <= limit ? text : `${points.slice(0, limit).join("")}…`;
}

export function anchorText(question: string, progress: string | null): string {
  const lines = [`Reminder of the original question (answer this one): ${question}`];
  if (progress) lines.push(`Your latest progress note: ${truncateCodePoints(progress, ANCHOR_PROGRESS_LIMIT)}`);
  lines.push("Stay on this question; call done once the evidence answers it.");
  return lines.join("\n");
}
