/**
 * Before submit: a team the bank does not permit is refused (docs/engine.md#never-a-misleading-result: the run's searches are
 * policy rejections), so say so next to the scope field. Nothing for `personal` or a permitted team.
 */
export function ScopeWarning({ scope, permittedTeams }: { scope: string; permittedTeams: readonly string[] }) {
  const value = scope.trim();
  if (!value.startsWith("team:") || permittedTeams.includes(value.slice("team:".length))) return null;
  return (
    <p className="mt-0.5 text-2xs text-amber-900" role="status" data-testid="scope-warning">
      This bank does not permit {value}
      {permittedTeams.length
        ? ` (it permits ${permittedTeams.map((t) => `team:${t}`).join(", ")})`
        : " (it permits no team)"}
      : a run in this scope is refused.
    </p>
  );
}
