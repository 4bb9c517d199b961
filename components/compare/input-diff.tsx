import { TextDiff } from "@/components/editors/text-diff";
import type { InputChange, MentalModelChange } from "@/lib/timeline/compare";

const FIELD_LABEL: Record<InputChange["field"], string> = {
  question: "Question",
  skill: "Skill version",
  mission: "Mission",
  disposition: "Disposition",
  budget: "Budget",
  mode: "Mode",
  scope: "Scope",
  model: "Model",
  output_format: "Output format",
  answer_format: "Answer format",
};

const staleness = (m: MentalModelChange["a"]) =>
  m
    ? `${m.version !== null ? `v${m.version} · ` : ""}${m.isStale === null ? "?" : m.isStale ? "stale" : "fresh"}${m.reason ? ` (${m.reason})` : ""}`
    : "not read";

/** Inputs that changed between the runs: run settings, skill text, and mental models as each run read them. */
export function InputDiff({ inputs, mentalModels }: { inputs: InputChange[]; mentalModels: MentalModelChange[] }) {
  if (inputs.length === 0 && mentalModels.length === 0) {
    return <p className="text-xs text-slate-600">Same inputs: question, skill, budget, scope and mental models.</p>;
  }
  return (
    <div className="flex flex-col gap-2 text-xs" data-testid="input-diff">
      {inputs.map((c) => (
        <div key={c.field} data-testid="input-change" data-field={c.field}>
          <div className="font-semibold text-slate-900">{FIELD_LABEL[c.field]}</div>
          {c.diff ? (
            <TextDiff ops={c.diff} by="words" />
          ) : c.a.length + c.b.length > 120 ? (
            // Two long texts with little in common: each whole, one above the other.
            <div className="flex flex-col gap-1" data-layout="stacked">
              <del className="block whitespace-pre-wrap rounded bg-rose-50 p-1.5 text-rose-900 no-underline">
                {c.a || "—"}
              </del>
              <ins className="block whitespace-pre-wrap rounded bg-emerald-50 p-1.5 text-emerald-900 no-underline">
                {c.b || "—"}
              </ins>
            </div>
          ) : (
            <p>
              <del className="bg-rose-50 text-rose-900">{c.a || "—"}</del> →{" "}
              <ins className="bg-emerald-50 text-emerald-900 no-underline">{c.b || "—"}</ins>
            </p>
          )}
        </div>
      ))}
      {mentalModels.map((m) => (
        <div key={m.id} data-testid="mental-model-change" data-model-id={m.id}>
          <div className="font-semibold text-slate-900">
            Mental model {m.name ?? m.id} <span className="font-mono font-normal text-slate-500">{m.id}</span>
          </div>
          {(m.stalenessChanged || m.a?.version !== m.b?.version) && (
            <p data-testid="staleness-change">
              <del className="bg-rose-50 text-rose-900">{staleness(m.a)}</del> →{" "}
              <ins className="bg-emerald-50 text-emerald-900 no-underline">{staleness(m.b)}</ins>
            </p>
          )}
          {m.contentChanged && m.contentDiff && (
            <div className="mt-1">
              <TextDiff ops={m.contentDiff} by="lines" testId="content-diff" />
            </div>
          )}
        </div>
      ))}
    </div>
  );
}
