/**
 * `cli --version`, `-V`, `version [--json]`: the package's version, one line (docs/cli.md#version).
 * The version is package.json's, bundled into the built CLI (package.json is one of the build's
 * inputs, so a new version rebuilds it). Loads nothing else: it answers as fast as `--help`.
 */
import { name, version } from "../../package.json";

export const PACKAGE = { name, version } as const;

/** The line printed: the bare version (`0.1.0`), or `{"name":…,"version":…}` with --json. */
export function versionLine(json: boolean): string {
  return `${json ? JSON.stringify(PACKAGE) : version}\n`;
}

/** `--version`, `-V` or `version`, with nothing after it but an optional `--json`; else null. */
export function versionRequest(argv: readonly string[]): { json: boolean } | null {
  const [first, ...rest] = argv;
  if (first !== "--version" && first !== "-V" && first !== "version") return null;
  if (rest.length === 0) return { json: false };
  if (rest.length === 1 && rest[0] === "--json") return { json: true };
  return null;
}
