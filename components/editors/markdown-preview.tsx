import { SafeMarkdown } from "@/components/ui/safe-markdown";

/** Renders a model's markdown: raw HTML stays text, images are links (SafeMarkdown). */
export function MarkdownPreview({ markdown }: { markdown: string }) {
  if (!markdown.trim()) return <p className="text-slate-500 italic">Nothing to preview.</p>;
  return (
    <div
      className="space-y-2 text-[13px] text-slate-800 leading-relaxed [&_code]:rounded [&_code]:bg-slate-100 [&_code]:px-1 [&_code]:font-mono [&_code]:text-xs [&_h1]:font-semibold [&_h1]:text-[15px] [&_h2]:font-semibold [&_h2]:text-[14px] [&_h3]:font-semibold [&_ol]:list-decimal [&_ol]:pl-5 [&_ul]:list-disc [&_ul]:pl-5 [&_a]:text-indigo-700 [&_a]:underline"
      data-testid="markdown-preview"
    >
      <SafeMarkdown>{markdown}</SafeMarkdown>
    </div>
  );
}
