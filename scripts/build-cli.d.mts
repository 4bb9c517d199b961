/** Types for scripts/build-cli.mjs (used by the test helpers). */
export const CLI_ENTRY: string;
export function cliIsStale(): boolean;
export function ensureCli(options?: { force?: boolean; log?: (line: string) => void }): string;
