import Link from "next/link";
import { getAppDb } from "@/lib/server/runtime/db";
import { bankSummary, defaultBankId } from "@/lib/server/services/memory";
import { listRunItems } from "@/lib/server/services/runs";
import { glossaryHref } from "@/lib/timeline/glossary";

export const dynamic = "force-dynamic";

const QUESTION = "What did we decide about the launch date?";

interface Step {
  title: string;
  what: string;
  links: { href: string; label: string }[];
}

/**
 * The front door: what the inspector is for and the curation loop on one screen, each step
 * linking to where it is done (the newest run where a step starts from a run).
 */
export default async function Home() {
  const db = await getAppDb();
  const bankId = await defaultBankId(db);
  const [bank, latest] = await Promise.all([bankId ? bankSummary(db, bankId) : null, listRunItems(db, { limit: 1 })]);
  const run = latest.runs[0];
  const runHref = run ? `/runs/${run.id}` : null;
  const ask = `/runs/new?q=${encodeURIComponent(QUESTION)}`;
  const steps: Step[] = [
    {
      title: "Ask",
      what: `Start a run: a question, a skill and a budget. Try “${QUESTION}” with skill recap, budget low.`,
      links: [{ href: ask, label: "New run" }],
    },
    {
      title: "Inspect",
      what: "Read the run's timeline: which tiers were searched and why, the freshness check, nudges, and which memory each citation came from.",
      links: [runHref ? { href: runHref, label: "Newest run" } : { href: "/runs", label: "Runs" }],
    },
    {
      title: "Fix memory",
      what: "Edit a stale or wrong mental model, or a skill's mission. Refresh now proposes new content; nothing is saved until you accept.",
      links: [
        { href: "/mental-models", label: "Mental models" },
        { href: "/skills", label: "Skills" },
      ],
    },
    {
      title: "Re-run",
      what: "On a run page, Re-run with changes runs your edits as a draft and saves nothing; Save these changes keeps them when they work.",
      links: [runHref ? { href: runHref, label: "Re-run the newest run" } : { href: "/runs", label: "Runs" }],
    },
    {
      title: "Compare",
      what: "Put parent and re-run side by side: the first step where they parted, then the answer and citation diffs.",
      links: [{ href: "/runs/compare", label: "Compare" }],
    },
    {
      title: "Gate with a suite",
      what: "Run a suite of questions with expectations (the demo ships demo-tour) so one fix cannot quietly break twenty other answers.",
      links: [{ href: "/suites", label: "Suites" }],
    },
  ];
  return (
    <div className="mx-auto max-w-5xl" data-testid="home">
      <h1 className="font-semibold text-xl text-slate-900">Reflect Inspector</h1>
      <p className="mt-1 max-w-3xl text-[13px] text-slate-700">
        Debug and curate a memory system's <strong>reflect</strong> step. Reflect answers a question with a loop over
        three memory tiers —{" "}
        <Link href={glossaryHref("mental-models")} className="text-indigo-800 underline">
          mental models
        </Link>{" "}
        →{" "}
        <Link href={glossaryHref("observations")} className="text-indigo-800 underline">
          observations
        </Link>{" "}
        →{" "}
        <Link href={glossaryHref("raw-facts")} className="text-indigo-800 underline">
          raw facts
        </Link>{" "}
        — and cites the memories it used. Every run is recorded step by step, so you can see why an answer came out the
        way it did, fix the memory, and prove the fix.
      </p>
      {bank ? (
        <p className="mt-1 text-xs text-slate-600" data-testid="home-bank">
          Bank{" "}
          <Link href={`/memory?bank=${encodeURIComponent(bank.id)}`} className="text-indigo-800 underline">
            {bank.name}
          </Link>
          : {bank.counts.mentalModels} mental models, {bank.counts.observations} observations, {bank.counts.facts} raw
          facts.
        </p>
      ) : null}
      <h2 className="mt-4 font-semibold text-[14px] text-slate-800">The loop</h2>
      <ol className="mt-2 grid grid-cols-1 gap-2 sm:grid-cols-2 lg:grid-cols-3" data-testid="home-loop">
        {steps.map((s, i) => (
          <li
            key={s.title}
            className="flex flex-col rounded border border-slate-200 bg-white p-3"
            data-testid="loop-step"
            data-step={s.title}
          >
            <h3 className="font-semibold text-[13px] text-slate-900">
              <span className="mr-1 text-slate-600">{i + 1}.</span>
              {s.title}
            </h3>
            <p className="mt-1 flex-1 text-xs text-slate-700">{s.what}</p>
            <p className="mt-2 flex flex-wrap gap-x-3 text-xs">
              {s.links.map((l) => (
                <Link key={l.href} href={l.href} className="font-medium text-indigo-800 underline">
                  {l.label}
                </Link>
              ))}
            </p>
          </li>
        ))}
      </ol>
      <p className="mt-3 text-xs text-slate-700">
        What a badge or a word means (short-circuited, anchored, release miss, forced, stale…):{" "}
        <Link href="/glossary" className="font-medium text-indigo-800 underline" data-testid="home-glossary">
          Glossary
        </Link>
        . Every badge links to its entry.
      </p>
    </div>
  );
}
