import { SafeMarkdown } from "@/components/ui/safe-markdown";
import { ScrollRegion } from "@/components/ui/scroll-region";
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
          data-memory-id={m.id}
        >
          <div className="flex items-center gap-2">
            <span className="font-medium text-slate-900">{m.name}</span>
            <StalenessBadge state={m.state} reason={m.reason} />
            <span className="ml-auto font-mono text-[10px] text-slate-500">
              {m.id} · v{m.version}
            </span>
          </div>
          <p className="mt-0.5 text-2xs text-slate-500" data-testid="staleness-reason">
            {m.reason}
            {m.refreshedAt ? ` · refreshed ${m.refreshedAt.slice(0, 16).replace("T", " ")}` : ""}
          </p>
          {m.tags.length > 0 ? (
            <div className="mt-1">
              <TagList tags={m.tags} />
            </div>
          ) : null}
          <ScrollRegion
            label={`${m.name}: content`}
            className="mt-2 max-h-40 space-y-1 overflow-auto text-xs text-slate-700 [overflow-wrap:anywhere] [&_code]:font-mono [&_ol]:list-decimal [&_ol]:pl-5 [&_ul]:list-disc [&_ul]:pl-5 [&_a]:text-indigo-700 [&_a]:underline"
            data-testid="mental-model-content"
          >
            <SafeMarkdown>{m.content}</SafeMarkdown>
          </ScrollRegion>
        </li>
      ))}
    </ul>
  );
}
