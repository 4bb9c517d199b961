/**
 * Scope semantics. A run with scope `personal` reads `personal` memories. A run with `team:<id>`
 * reads `personal` plus `team:<id>` memories, but only when the bank lists the team in
 * `permittedTeams`; tier searches otherwise throw `ScopeNotPermittedError` (a policy rejection),
 * while counts fall back to `personal` only. Mental models are bank-wide and carry no scope.
 */
import type { ScopeValue } from "@/lib/reflect/domain";

export function teamOf(scope: ScopeValue): string | null {
  return scope.startsWith("team:") ? scope.slice("team:".length) : null;
}

export function isScopePermitted(scope: ScopeValue, permittedTeams: readonly string[]): boolean {
  const team = teamOf(scope);
  return team === null || permittedTeams.includes(team);
}

/** The memory scopes a run may read; a non-permitted team reads `personal` only. */
export function readableScopes(scope: ScopeValue, permittedTeams: readonly string[]): ScopeValue[] {
  const team = teamOf(scope);
  return team !== null && permittedTeams.includes(team) ? ["personal", scope] : ["personal"];
}
