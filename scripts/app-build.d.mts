/** Types for scripts/app-build.mjs (used by the e2e setup). */
export const BUILD_INPUTS: string[];
export function appBuildStale(root: string): boolean;
export function buildApp(
  root: string,
  options?: { inherit?: boolean },
): Promise<{ status: number; seconds: number; output: string }>;
