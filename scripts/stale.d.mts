/** Types for scripts/stale.mjs (used by tests). */
export function newestMtime(path: string): number;
export function isStale(built: string, sources: string[]): boolean;
