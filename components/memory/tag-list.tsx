export function TagList({ tags }: { tags: string[] }) {
  return (
    <span className="inline-flex flex-wrap gap-1">
      {tags.map((t) => (
        <span key={t} className="rounded bg-slate-100 px-1 py-px font-mono text-[10px] text-slate-600">
          #{t}
        </span>
      ))}
    </span>
  );
}
