"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useMemo, useState } from "react";
import { CharCount, OverLimitNote, overLimitReason } from "@/components/editors/char-count";
import { ScopeWarning } from "@/components/editors/scope-warning";
import { Button } from "@/components/ui/button";
import { Input, Select, Textarea } from "@/components/ui/input";
import { unwrap } from "@/lib/client/unwrap";
import type { BankOption } from "@/lib/contracts/banks";
import { type ActionResult, isAppError } from "@/lib/contracts/errors";
import { LIMITS } from "@/lib/contracts/fields";
import type { RunStarted, StartRunInput } from "@/lib/contracts/runs";
import { defaultSkillOf } from "@/lib/contracts/skills";
import type { Budget, RunMode } from "@/lib/reflect/domain";

/** What the form's fields hold: selects and text, where "" means "the skill's default". */
type FormValues = {
  bankId: string;
  skill: string;
  budget: "" | Budget;
  mode: RunMode;
  scope: string;
  question: string;
};

export function StartRunForm({
  banks,
  startRun,
  initial,
}: {
  banks: BankOption[];
  startRun: (input: StartRunInput) => Promise<ActionResult<RunStarted>>;
  initial?: Partial<FormValues>;
}) {
  const router = useRouter();
  const [bankId, setBankId] = useState(initial?.bankId ?? banks[0]?.id ?? "");
  const bank = banks.find((b) => b.id === bankId);
  const [skill, setSkill] = useState(initial?.skill ?? defaultSkillOf(bank?.skills ?? [])?.name ?? "");
  const [budget, setBudget] = useState<FormValues["budget"]>(initial?.budget ?? "");
  const [mode, setMode] = useState<RunMode>(initial?.mode ?? "synthesize");
  const [scope, setScope] = useState(initial?.scope ?? "personal");
  const [question, setQuestion] = useState(initial?.question ?? "");
  const scopes = useMemo(
    () => ["personal", ...(bank?.permittedTeams ?? []).map((t) => `team:${t}`)],
    [bank?.permittedTeams],
  );

  const mutation = useMutation({
    mutationFn: (input: StartRunInput) => unwrap(startRun(input)),
    onSuccess: ({ runId }) => router.push(`/runs/${runId}`),
  });
  const blocked = overLimitReason([{ label: "the question", value: question, max: LIMITS.questionChars }], "start it");
  const blockedId = useId();
  const fieldErrors = isAppError(mutation.error) ? (mutation.error.details.fieldErrors ?? {}) : {};
  const errorOf = (name: string) =>
    fieldErrors[name]?.length ? (
      <p className="mt-0.5 text-2xs text-red-700" data-testid={`field-error-${name}`}>
        {fieldErrors[name]?.join("; ")}
      </p>
    ) : null;

  return (
    <form
      className="grid max-w-3xl grid-cols-4 gap-3 rounded border border-slate-200 bg-white p-4"
      data-testid="start-run-form"
      onSubmit={(e) => {
        e.preventDefault();
        // An empty select or field means "the skill's default": the contract says so by leaving it out.
        mutation.mutate({
          bankId,
          skill: skill || undefined,
          budget: budget || undefined,
          mode,
          scope: scope.trim() || undefined,
          question,
        });
      }}
    >
      <label className="col-span-4">
        <span className="mb-1 block text-2xs text-slate-500 uppercase tracking-wide">Question</span>
        <Textarea
          name="question"
          className="w-full h-20 resize-y"
          value={question}
          onChange={(e) => setQuestion(e.target.value)}
          placeholder="What did we decide about the launch date?"
        />
        <CharCount value={question} max={LIMITS.questionChars} testId="question-count" />
        {errorOf("question")}
      </label>
      <label>
        <span className="mb-1 block text-2xs text-slate-500 uppercase tracking-wide">Bank</span>
        <Select
          name="bankId"
          className="w-full"
          value={bankId}
          onChange={(e) => {
            setBankId(e.target.value);
            setSkill(defaultSkillOf(banks.find((b) => b.id === e.target.value)?.skills ?? [])?.name ?? "");
          }}
        >
          {banks.map((b) => (
            <option key={b.id} value={b.id}>
              {b.name}
            </option>
          ))}
        </Select>
        {errorOf("bankId")}
      </label>
      <label>
        <span className="mb-1 block text-2xs text-slate-500 uppercase tracking-wide">Skill</span>
        <Select name="skill" className="w-full" value={skill} onChange={(e) => setSkill(e.target.value)}>
          {bank?.skills.map((s) => (
            <option key={s.id} value={s.name}>
              {s.name} (v{s.version}, {s.budget})
            </option>
          ))}
        </Select>
        {errorOf("skill")}
      </label>
      <label>
        <span className="mb-1 block text-2xs text-slate-500 uppercase tracking-wide">Budget</span>
        <Select
          name="budget"
          className="w-full"
          value={budget}
          onChange={(e) => setBudget(e.target.value as FormValues["budget"])}
        >
          <option value="">skill default</option>
          <option value="low">low (5 iterations)</option>
          <option value="mid">mid (10)</option>
          <option value="high">high (20)</option>
        </Select>
        {errorOf("budget")}
      </label>
      <label>
        <span className="mb-1 block text-2xs text-slate-500 uppercase tracking-wide">Mode</span>
        <Select name="mode" className="w-full" value={mode} onChange={(e) => setMode(e.target.value as RunMode)}>
          <option value="synthesize">synthesize</option>
          <option value="facts">facts (no LLM call)</option>
        </Select>
        {errorOf("mode")}
      </label>
      <label>
        <span className="mb-1 block text-2xs text-slate-500 uppercase tracking-wide">Scope</span>
        <Input
          name="scope"
          className="w-full"
          list="scope-options"
          value={scope}
          onChange={(e) => setScope(e.target.value)}
        />
        <datalist id="scope-options">
          {scopes.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
        <ScopeWarning scope={scope} permittedTeams={bank?.permittedTeams ?? []} />
        {errorOf("scope")}
      </label>
      <div className="col-span-3 flex items-end justify-end gap-3">
        {mutation.error ? (
          <p className="text-red-700" role="alert">
            {mutation.error.message}
          </p>
        ) : null}
        <OverLimitNote id={blockedId} reason={blocked} />
        <Button
          variant="primary"
          size="md"
          type="submit"
          disabled={mutation.isPending || blocked !== null}
          aria-describedby={blocked ? blockedId : undefined}
          className="px-4"
          data-testid="start-run"
        >
          {mutation.isPending ? "Starting…" : "Start run"}
        </Button>
      </div>
    </form>
  );
}
