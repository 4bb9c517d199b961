import type { MentalModelItem } from "@/lib/contracts/mental-models";
import { StalenessBadge } from "./staleness-badge";
import { TagList } from "./tag-list";

export function MentalModelList({ items }: { items: MentalModelItem[] }) {
  return (
    <ul className="grid grid-cols-1 gap-2 lg:grid-cols-2">
      {items.map((m) => (
        <li
          key={m.id}
          className="rounded border border-slate-200 bg-white p-3"
          data-testid="mental-model"
          data-model-id={m.id}
        >
          <div className="flex items-center gap-2">
            <span className="font-medium text-slate-900">{m.name}</span>
            <StalenessBadge state={m.state} reason={m.reason} />
            <span className="ml-auto font-mono text-[10px] text-slate-400">
              {m.id} · v{m.version}
            </span>
          </div>
          <p className="mt-0.5 text-[11px] text-slate-500" data-testid="staleness-reason">
            {m.reason}
            {m.refreshedAt ? ` · refreshed ${m.refreshedAt.slice(0, 16).replace("T", " ")}` : ""}
          </p>
          {m.tags.length > 0 ? (
            <div className="mt-1">
              <TagList tags={m.tags} />
            </div>
          ) : null}
          <pre className="mt-2 max-h-40 overflow-auto whitespace-pre-wrap font-sans text-[12px] text-slate-700">
            {m.content}
          </pre>
        </li>
      ))}
    </ul>
  );
}
