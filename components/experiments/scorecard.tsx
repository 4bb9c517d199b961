import type { Scorecard as ScorecardData, ScoreLine } from "@/lib/contracts/experiments";

const pct = (x: number | null) => (x === null ? "—" : `${Math.round(x * 100)}%`);
const ms = (x: number | null) => (x === null ? "—" : `${Math.round(x).toLocaleString("en-US")} ms`);

const COLUMNS: { label: string; title: string; value: (l: ScoreLine) => string }[] = [
  {
    label: "Questions",
    title: "finished / in the suite",
    value: (l) => (l.finished === l.questions ? String(l.questions) : `${l.finished} / ${l.questions}`),
  },
  { label: "Pass rate", title: "passed / finished", value: (l) => pct(l.passRate) },
  {
    label: "Mean F1",
    title: "token F1 of the first line against the gold answer (questions with one)",
    value: (l) => (l.meanF1 === null ? "—" : l.meanF1.toFixed(2)),
  },
  {
    label: "Gold contained",
    title: "the answer contains the gold answer (normalised; dates in any form)",
    value: (l) => pct(l.goldContained),
  },
  {
    label: "Evidence retrieved",
    title: "the run retrieved one of the evidence ids (mustCite / mustCiteAny)",
    value: (l) => pct(l.evidenceRetrieved),
  },
  { label: "Evidence cited", title: "the answer cites one of the evidence ids", value: (l) => pct(l.evidenceCited) },
  {
    label: "Abstention",
    title: "runs that said the memory does not hold it and cited nothing",
    value: (l) => pct(l.abstention),
  },
  { label: "LLM calls", title: "model calls of the runs (judge calls not included)", value: (l) => String(l.llmCalls) },
  {
    label: "Judge calls",
    title: "model calls of the LLM judge, one per judged question",
    value: (l) => String(l.judgeCalls),
  },
  { label: "p50", title: "median run latency", value: (l) => ms(l.latencyP50Ms) },
  { label: "p95", title: "95th-percentile run latency", value: (l) => ms(l.latencyP95Ms) },
];

/** The experiment's scorecard: a line per tag (a benchmark's category) and one for all questions. */
export function Scorecard({ card }: { card: ScorecardData }) {
  const lines = [...card.byTag, card.overall];
  return (
    <section aria-labelledby="scorecard-heading" className="overflow-x-auto">
      <h2 id="scorecard-heading" className="mb-1 font-semibold text-[13px]">
        Scorecard{card.byTag.length > 0 ? " by tag" : ""}
      </h2>
      <table className="w-full min-w-[760px] border-collapse text-xs" data-testid="scorecard">
        <thead>
          <tr className="border-b border-slate-300 text-left text-slate-700">
            <th className="py-1 pr-2">Tag</th>
            {COLUMNS.map((c) => (
              <th key={c.label} className="py-1 pr-2 text-right" title={c.title}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {lines.map((l) => (
            <tr
              key={l.tag ?? "\u0000all"}
              className={`border-b border-slate-100 ${l.tag === null ? "font-semibold" : ""}`}
              data-testid="scorecard-line"
              data-tag={l.tag ?? "all"}
            >
              <td className="py-1 pr-2">{l.tag ?? "All questions"}</td>
              {COLUMNS.map((c) => (
                <td key={c.label} className="py-1 pr-2 text-right tabular-nums" data-col={c.label}>
                  {c.value(l)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
