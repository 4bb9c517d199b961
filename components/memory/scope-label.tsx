/** A memory's scope; a team the bank does not permit is marked, since no run can read it. */
export function ScopeLabel({ scope, permittedTeams }: { scope: string; permittedTeams: string[] }) {
  const team = scope.startsWith("team:") ? scope.slice(5) : null;
  const blocked = team !== null && !permittedTeams.includes(team);
  return (
    <span
      className={`font-mono text-[10px] ${blocked ? "text-red-700" : team ? "text-sky-700" : "text-slate-500"}`}
      title={blocked ? "this team is not permitted for the bank: runs never read it" : undefined}
    >
      {scope}
      {blocked ? " · not permitted" : ""}
    </span>
  );
}
