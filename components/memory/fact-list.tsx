import type { FactItem } from "@/lib/contracts/memory";
import { ScopeLabel } from "./scope-label";
import { TagList } from "./tag-list";

export function FactList({ items, permittedTeams }: { items: FactItem[]; permittedTeams: string[] }) {
  return (
    <ul className="divide-y divide-slate-100 rounded border border-slate-200 bg-white">
      {items.map((f) => (
        <li key={f.id} className="px-3 py-2" data-testid="fact" data-memory-id={f.id}>
          <p className="text-slate-800 [overflow-wrap:anywhere]">{f.text}</p>
          <div className="mt-1 flex flex-wrap items-center gap-2 text-2xs text-slate-500">
            <span className="font-mono text-[10px] text-slate-500">{f.id}</span>
            <span className="rounded bg-slate-50 px-1 text-[10px] text-slate-500">{f.kind}</span>
            {f.speaker || f.sessionId ? (
              <span data-testid="fact-said">
                {[f.speaker, f.sessionId ? `${f.sessionId}${f.position !== null ? ` #${f.position}` : ""}` : null]
                  .filter(Boolean)
                  .join(" · ")}
              </span>
            ) : null}
            <ScopeLabel scope={f.scope} permittedTeams={permittedTeams} />
            <TagList tags={f.tags} />
            <span>
              {f.occurredAt ? `happened ${f.occurredAt.slice(0, 10)} · ` : ""}recorded {f.recordedAt.slice(0, 10)}
            </span>
            {f.updatedAt !== f.recordedAt ? (
              <span className="text-amber-700">edited {f.updatedAt.slice(0, 10)}</span>
            ) : null}
          </div>
          {f.context && (f.context.before || f.context.after) ? (
            <div className="mt-2 border-l-2 border-slate-200 pl-2 text-xs text-slate-600" data-testid="fact-context">
              <p className="text-2xs text-slate-500">In its session (context, not this memory):</p>
              {[f.context.before, f.context.after].map((t, i) =>
                t ? (
                  <p key={t.id} className="[overflow-wrap:anywhere]">
                    <span className="font-mono text-[10px]">{t.id}</span> {i === 0 ? "before" : "after"}
                    {t.speaker ? ` — ${t.speaker}` : ""}: {t.text}
                  </p>
                ) : null,
              )}
            </div>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
