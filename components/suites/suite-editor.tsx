"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Check, Input, Select, Textarea } from "@/components/ui/input";
import { unwrap } from "@/lib/client/unwrap";
import type { ActionResult } from "@/lib/contracts/errors";
import type { SaveSuiteInput, Suite, SuiteQuestion, SuiteVersion } from "@/lib/contracts/suites";
import { RUN_STATUSES } from "@/lib/reflect/domain";

const FINAL_STATUSES = RUN_STATUSES.filter((s) => s !== "running");

const splitList = (text: string) =>
  text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
const splitLines = (text: string) =>
  text
    .split("\n")
    .map((s) => s.trim())
    .filter(Boolean);

/** Drops empty expectation keys so a saved question carries only what it checks. */
function clean(q: SuiteQuestion): SuiteQuestion {
  const e = q.expect ?? {};
  const expect = Object.fromEntries(
    Object.entries(e).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0)),
  );
  const { expect: _e, ...rest } = q;
  const base = Object.fromEntries(
    Object.entries(rest).filter(([, v]) => v !== undefined && v !== ""),
  ) as unknown as SuiteQuestion;
  return Object.keys(expect).length ? { ...base, expect } : base;
}

function QuestionRow({
  index,
  q,
  skills,
  onChange,
  onRemove,
}: {
  index: number;
  q: SuiteQuestion;
  skills: string[];
  onChange: (q: SuiteQuestion) => void;
  onRemove: () => void;
}) {
  const e = q.expect ?? {};
  const set = (patch: Partial<NonNullable<SuiteQuestion["expect"]>>) => onChange({ ...q, expect: { ...e, ...patch } });
  const id = `q${index}`;
  return (
    <li className="rounded border border-slate-200 bg-white p-2" data-testid="suite-question">
      <div className="flex flex-wrap items-end gap-2">
        <span className="w-6 pb-1 text-right font-mono text-2xs text-slate-600">{index + 1}</span>
        <label className="min-w-[16rem] flex-1 text-2xs text-slate-700">
          Question
          <Input
            size="sm"
            className="w-full"
            value={q.question}
            onChange={(ev) => onChange({ ...q, question: ev.target.value })}
            data-testid="question-text"
          />
        </label>
        <label className="text-2xs text-slate-700">
          Skill
          <Select
            size="sm"
            className="w-full"
            value={q.skill ?? ""}
            onChange={(ev) => onChange({ ...q, skill: ev.target.value || undefined })}
          >
            <option value="">(default)</option>
            {skills.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </Select>
        </label>
        <label className="text-2xs text-slate-700">
          Budget
          <Select
            size="sm"
            className="w-full"
            value={q.budget ?? ""}
            onChange={(ev) => onChange({ ...q, budget: (ev.target.value || undefined) as SuiteQuestion["budget"] })}
          >
            <option value="">(skill's)</option>
            <option>low</option>
            <option>mid</option>
            <option>high</option>
          </Select>
        </label>
        <Button onClick={onRemove} aria-label={`Remove question ${index + 1}`}>
          Remove
        </Button>
      </div>
      <fieldset className="mt-2 grid grid-cols-1 gap-2 pl-8 md:grid-cols-3">
        <legend className="sr-only">Expectations of question {index + 1}</legend>
        <div className="text-2xs text-slate-700">
          <span>Status is one of</span>
          <div className="mt-0.5 flex flex-wrap gap-x-2">
            {FINAL_STATUSES.map((s) => (
              <label key={s} className="flex items-center gap-1">
                <Check
                  type="checkbox"
                  checked={e.status?.includes(s) ?? false}
                  onChange={(ev) => {
                    const next = new Set(e.status ?? []);
                    if (ev.target.checked) next.add(s);
                    else next.delete(s);
                    set({ status: next.size ? FINAL_STATUSES.filter((x) => next.has(x)) : undefined });
                  }}
                />
                {s.replace("_", " ")}
              </label>
            ))}
          </div>
        </div>
        <label className="text-2xs text-slate-700" htmlFor={`${id}-cite`}>
          Must cite (ids, comma-separated)
          <Input
            size="sm"
            id={`${id}-cite`}
            className="w-full font-mono"
            defaultValue={(e.mustCite ?? []).join(", ")}
            onBlur={(ev) => set({ mustCite: splitList(ev.target.value) })}
            data-testid="expect-must-cite"
          />
        </label>
        <label className="text-2xs text-slate-700" htmlFor={`${id}-nocite`}>
          Must not cite
          <Input
            size="sm"
            id={`${id}-nocite`}
            className="w-full font-mono"
            defaultValue={(e.mustNotCite ?? []).join(", ")}
            onBlur={(ev) => set({ mustNotCite: splitList(ev.target.value) })}
          />
        </label>
        <label className="text-2xs text-slate-700" htmlFor={`${id}-contains`}>
          Answer contains (one per line)
          <Textarea
            size="sm"
            id={`${id}-contains`}
            rows={1}
            className="w-full"
            defaultValue={(e.contains ?? []).join("\n")}
            onBlur={(ev) => set({ contains: splitLines(ev.target.value) })}
            data-testid="expect-contains"
          />
        </label>
        <label className="text-2xs text-slate-700" htmlFor={`${id}-notcontains`}>
          Answer does not contain
          <Textarea
            size="sm"
            id={`${id}-notcontains`}
            rows={1}
            className="w-full"
            defaultValue={(e.notContains ?? []).join("\n")}
            onBlur={(ev) => set({ notContains: splitLines(ev.target.value) })}
          />
        </label>
        <label className="text-2xs text-slate-700" htmlFor={`${id}-calls`}>
          At most N LLM calls
          <Input
            size="sm"
            id={`${id}-calls`}
            type="number"
            min={0}
            className="w-full"
            value={e.maxLlmCalls ?? ""}
            onChange={(ev) => set({ maxLlmCalls: ev.target.value === "" ? undefined : Number(ev.target.value) })}
          />
        </label>
      </fieldset>
    </li>
  );
}

/** The suite editor: questions with their expectations; every save is a new version holding the whole list. */
export function SuiteEditor({
  suite,
  versions,
  skills,
  save,
}: {
  suite: Suite;
  versions: SuiteVersion[];
  skills: string[];
  save: (input: SaveSuiteInput) => Promise<ActionResult<Suite>>;
}) {
  const router = useRouter();
  const [description, setDescription] = useState(suite.description);
  const [questions, setQuestions] = useState<SuiteQuestion[]>(suite.questions);
  const [key, setKey] = useState(0);
  const saving = useMutation({
    mutationFn: (i: SaveSuiteInput) => unwrap(save(i)),
    onSuccess: () => router.refresh(),
  });
  const fieldErrors =
    saving.error && "details" in saving.error
      ? (saving.error.details as { fieldErrors?: Record<string, string[]> }).fieldErrors
      : undefined;
  return (
    <form
      className="flex flex-col gap-2"
      onSubmit={(ev) => {
        ev.preventDefault();
        saving.mutate({
          bankId: suite.bankId,
          name: suite.name,
          description,
          questions: questions.map(clean),
          expectedVersion: suite.version,
        });
      }}
      data-testid="suite-editor"
    >
      <label className="text-xs text-slate-700">
        Description
        <Input size="sm" className="w-full" value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <ol className="flex flex-col gap-1.5" key={key}>
        {questions.map((q, i) => (
          <QuestionRow
            key={i}
            index={i}
            q={q}
            skills={skills}
            onChange={(next) => setQuestions(questions.map((x, j) => (j === i ? next : x)))}
            onRemove={() => {
              setQuestions(questions.filter((_, j) => j !== i));
              setKey(key + 1);
            }}
          />
        ))}
      </ol>
      <div className="flex flex-wrap items-center gap-2">
        <Button onClick={() => setQuestions([...questions, { question: "" }])}>Add a question</Button>
        <Button
          variant="primary"
          type="submit"
          className="px-3 font-normal"
          disabled={saving.isPending}
          data-testid="save-suite"
        >
          {saving.isPending ? "Saving…" : `Save as version ${suite.version + 1}`}
        </Button>
        {saving.isSuccess && !saving.isPending && <span className="text-xs text-emerald-800">Saved.</span>}
        {saving.error && (
          <span className="text-xs text-red-700" role="alert">
            {saving.error.message}
            {fieldErrors &&
              Object.entries(fieldErrors)
                .slice(0, 3)
                .map(([path, msgs]) => ` · ${path}: ${msgs.join(", ")}`)}
          </span>
        )}
      </div>
      <details className="text-xs text-slate-700">
        <summary className="cursor-pointer">Versions ({versions.length})</summary>
        <ul className="mt-1 flex flex-col gap-0.5">
          {versions.map((v) => (
            <li key={v.version} className="font-mono text-2xs">
              v{v.version} · {v.questions.length} questions · {v.createdAt?.replace("T", " ").slice(0, 16) ?? "—"}
              {v.description ? ` · ${v.description}` : ""}
            </li>
          ))}
        </ul>
      </details>
    </form>
  );
}
