"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Check, Select } from "@/components/ui/input";
import { unwrap } from "@/lib/client/unwrap";
import type { ActionResult } from "@/lib/contracts/errors";
import {
  type ExperimentStarted,
  type ExperimentSummary,
  experimentHref,
  type StartExperimentInput,
} from "@/lib/contracts/experiments";
import type { Budget } from "@/lib/reflect/domain";

/** Runs the suite: current state, or a saved skill version, with a budget and a baseline to compare with. */
export function RunExperimentForm({
  bankId,
  suite,
  skills,
  baselines,
  start,
}: {
  bankId: string;
  suite: string;
  skills: { name: string; version: number }[];
  baselines: ExperimentSummary[];
  start: (input: StartExperimentInput) => Promise<ActionResult<ExperimentStarted>>;
}) {
  const router = useRouter();
  const [budget, setBudget] = useState("");
  const [skill, setSkill] = useState("");
  const [version, setVersion] = useState("");
  const [baseline, setBaseline] = useState(baselines.find((b) => b.status === "done")?.id ?? "");
  const [allowIncomplete, setAllowIncomplete] = useState(false);
  const chosen = baselines.find((b) => b.id === baseline);
  // A baseline that did not complete hides the questions it skipped from the gate: compared only when asked.
  const incomplete = chosen !== undefined && (chosen.status !== "done" || chosen.totals.skipped > 0);
  const starting = useMutation({
    mutationFn: (i: StartExperimentInput) => unwrap(start(i)),
    onSuccess: ({ experimentId }) => router.push(experimentHref(experimentId)),
  });
  const current = skills.find((s) => s.name === skill);
  return (
    <form
      className="flex flex-wrap items-end gap-2 rounded border border-slate-200 bg-slate-50 p-2"
      onSubmit={(e) => {
        e.preventDefault();
        starting.mutate({
          bankId,
          suite,
          baseline: baseline || undefined,
          allowIncompleteBaseline: incomplete && allowIncomplete,
          config: {
            budget: (budget || undefined) as Budget | undefined,
            skill: skill && version ? { name: skill, version: Number(version) } : undefined,
            mentalModels: [],
          },
        });
      }}
      data-testid="run-experiment"
    >
      <label className="text-2xs text-slate-700">
        Budget
        <Select size="sm" className="block" value={budget} onChange={(e) => setBudget(e.target.value)}>
          <option value="">each question's</option>
          <option>low</option>
          <option>mid</option>
          <option>high</option>
        </Select>
      </label>
      <label className="text-2xs text-slate-700">
        Skill draft
        <Select size="sm" className="block" value={skill} onChange={(e) => setSkill(e.target.value)}>
          <option value="">current state</option>
          {skills.map((s) => (
            <option key={s.name}>{s.name}</option>
          ))}
        </Select>
      </label>
      {current && (
        <label className="text-2xs text-slate-700">
          Version
          <Select size="sm" className="block" value={version} onChange={(e) => setVersion(e.target.value)}>
            <option value="">pick one</option>
            {Array.from({ length: current.version }, (_, i) => current.version - i).map((v) => (
              <option key={v} value={v}>
                v{v}
                {v === current.version ? " (current)" : ""}
              </option>
            ))}
          </Select>
        </label>
      )}
      <label className="text-2xs text-slate-700">
        Compare with
        <Select size="sm" className="block" value={baseline} onChange={(e) => setBaseline(e.target.value)}>
          <option value="">no baseline</option>
          {baselines.map((b) => (
            <option key={b.id} value={b.id}>
              {b.id} · {b.status} · {b.totals.passed}/{b.totals.questions}
              {b.status !== "done" || b.totals.skipped > 0 ? " (incomplete)" : ""}
            </option>
          ))}
        </Select>
      </label>
      {incomplete && (
        <label className="flex items-center gap-1 text-2xs text-amber-900">
          <Check
            type="checkbox"
            checked={allowIncomplete}
            onChange={(e) => setAllowIncomplete(e.target.checked)}
            data-testid="allow-incomplete-baseline"
          />
          {chosen?.status === "done" ? "it skipped questions" : `it is ${chosen?.status}`}: compare only the questions
          run on both sides
        </label>
      )}
      <Button
        variant="primary"
        type="submit"
        className="px-3 font-normal"
        disabled={starting.isPending}
        data-testid="start-experiment"
      >
        {starting.isPending ? "Starting…" : "Run experiment"}
      </Button>
      {starting.error && (
        <span className="text-xs text-red-700" role="alert">
          {starting.error.message}
        </span>
      )}
    </form>
  );
}
