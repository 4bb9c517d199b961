import type { Metadata } from "next";
import { GLOSSARY, type GlossaryEntry } from "@/lib/timeline/glossary";

export const metadata: Metadata = { title: "Glossary · Reflect Inspector" };

const GROUPS: { id: GlossaryEntry["group"]; title: string }[] = [
  { id: "tiers", title: "The three memory tiers" },
  { id: "the loop", title: "The loop" },
  { id: "run badges", title: "Run badges" },
  { id: "statuses", title: "Run statuses" },
  { id: "memory", title: "Mental-model staleness" },
  { id: "curation", title: "Curation" },
];

/** Every word a badge or label uses, each at its own anchor (badges link to `/glossary#<term>`). */
export default function GlossaryPage() {
  return (
    <div className="mx-auto max-w-3xl" data-testid="glossary">
      <h1 className="font-semibold text-lg text-slate-900">Glossary</h1>
      <p className="mt-1 text-xs text-slate-700">
        One name per tier everywhere: mental models, observations, raw facts.
      </p>
      {GROUPS.map((g) => (
        <section key={g.id} className="mt-4" aria-labelledby={`group-${g.id.replace(" ", "-")}`}>
          <h2 id={`group-${g.id.replace(" ", "-")}`} className="font-semibold text-[14px] text-slate-800">
            {g.title}
          </h2>
          <dl className="mt-1 divide-y divide-slate-100 rounded border border-slate-200 bg-white">
            {GLOSSARY.filter((e) => e.group === g.id).map((e) => (
              <div
                key={e.id}
                id={e.id}
                className="scroll-mt-4 px-3 py-2 target:bg-amber-50"
                data-testid="glossary-entry"
                data-term={e.id}
              >
                <dt className="font-semibold text-[13px] text-slate-900">{e.term}</dt>
                <dd className="mt-0.5 text-xs text-slate-700">{e.definition}</dd>
              </div>
            ))}
          </dl>
        </section>
      ))}
    </div>
  );
}
