"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { Button, buttonClass } from "@/components/ui/button";
import { Drawer, DrawerClose, DrawerContent, DrawerTitle, DrawerTrigger } from "@/components/ui/drawer";
import { Check, Input, Select } from "@/components/ui/input";
import { unwrap } from "@/lib/client/unwrap";
import type { ActionResult } from "@/lib/contracts/errors";
import { suiteHref } from "@/lib/contracts/experiments";
import type { AddToSuiteInput, Expectation, Suite, SuiteQuestion, SuiteSummary } from "@/lib/contracts/suites";

/**
 * "Add to suite" on a run page: the run's question, skill, budget, mode and scope, with expectations
 * suggested from what it did (its status and its citations); each can be unticked before adding.
 */
export function AddToSuite({
  bankId,
  question,
  suggested,
  ticked = ["status", "mustCite"],
  why = null,
  suites,
  add,
}: {
  bankId: string;
  question: Omit<SuiteQuestion, "expect">;
  suggested: Expectation;
  /** The suggestions ticked at first. */
  ticked?: (keyof Expectation)[];
  /** Why the suggestions differ from what the run did (a run that went wrong). */
  why?: string | null;
  suites: SuiteSummary[];
  add: (input: AddToSuiteInput) => Promise<ActionResult<Suite>>;
}) {
  const [name, setName] = useState(suites[0]?.name ?? "");
  const [newName, setNewName] = useState("");
  const [keep, setKeep] = useState<Record<string, boolean>>(() => Object.fromEntries(ticked.map((k) => [k, true])));
  const target = name === "__new" ? newName.trim() : name;
  const existing = suites.find((s) => s.name === target);
  const adding = useMutation({ mutationFn: (i: AddToSuiteInput) => unwrap(add(i)) });
  const expect = Object.fromEntries(
    Object.entries(suggested).filter(([k, v]) => keep[k] && v !== undefined && !(Array.isArray(v) && !v.length)),
  ) as Expectation;
  return (
    <Drawer onOpenChange={() => adding.reset()}>
      <DrawerTrigger asChild>
        <Button data-testid="open-add-to-suite">Add to suite</Button>
      </DrawerTrigger>
      <DrawerContent width="max-w-md">
        <form
          className="flex flex-col gap-3 overflow-y-auto p-4"
          onSubmit={(e) => {
            e.preventDefault();
            adding.mutate({
              bankId,
              name: target,
              question: { ...question, ...(Object.keys(expect).length ? { expect } : {}) },
              expectedVersion: existing?.version ?? 0,
            });
          }}
        >
          <DrawerTitle className="font-semibold">Add this question to a suite</DrawerTitle>
          <p className="text-xs text-slate-800">“{question.question}”</p>
          <p className="text-2xs text-slate-700">
            skill {question.skill ?? "(default)"} · budget {question.budget} · mode {question.mode} · scope{" "}
            {question.scope}
          </p>
          <label className="text-xs text-slate-700">
            Suite
            <Select
              size="sm"
              className="w-full"
              value={name}
              onChange={(e) => setName(e.target.value)}
              data-testid="suite-select"
            >
              {suites.map((s) => (
                <option key={s.name} value={s.name}>
                  {s.name} ({s.questionCount} questions)
                </option>
              ))}
              <option value="__new">A new suite…</option>
            </Select>
          </label>
          {name === "__new" && (
            <label className="text-xs text-slate-700">
              New suite name
              <Input
                size="sm"
                className="w-full"
                value={newName}
                onChange={(e) => setNewName(e.target.value)}
                placeholder="release-gate"
                data-testid="new-suite-name"
              />
            </label>
          )}
          <fieldset className="flex flex-col gap-1 text-xs text-slate-800">
            <legend className="mb-1 text-slate-700">Expectations suggested by this run</legend>
            {why && (
              <p className="mb-1 text-2xs text-amber-900" data-testid="suggest-why">
                {why}
              </p>
            )}
            {suggested.status && (
              <label className="flex items-center gap-1">
                <Check
                  type="checkbox"
                  checked={keep.status ?? false}
                  onChange={(e) => setKeep({ ...keep, status: e.target.checked })}
                />
                status is {suggested.status.join(" or ")}
              </label>
            )}
            {suggested.mustCite && suggested.mustCite.length > 0 && (
              <label className="flex items-center gap-1">
                <Check
                  type="checkbox"
                  checked={keep.mustCite ?? false}
                  onChange={(e) => setKeep({ ...keep, mustCite: e.target.checked })}
                  data-testid="keep-must-cite"
                />
                <span>
                  must cite <span className="font-mono">{suggested.mustCite.join(", ")}</span>
                </span>
              </label>
            )}
            {suggested.mustCiteAny && suggested.mustCiteAny.length > 0 && (
              <label className="flex items-center gap-1">
                <Check
                  type="checkbox"
                  checked={keep.mustCiteAny ?? false}
                  onChange={(e) => setKeep({ ...keep, mustCiteAny: e.target.checked })}
                  data-testid="keep-must-cite-any"
                />
                <span>
                  cites one of <span className="font-mono">{suggested.mustCiteAny.join(", ")}</span>
                </span>
              </label>
            )}
            {suggested.abstains !== undefined && (
              <label className="flex items-center gap-1">
                <Check
                  type="checkbox"
                  checked={keep.abstains ?? false}
                  onChange={(e) => setKeep({ ...keep, abstains: e.target.checked })}
                  data-testid="keep-abstains"
                />
                {suggested.abstains ? "declines (the memory does not hold it)" : "answers (does not decline)"}
              </label>
            )}
            {suggested.maxLlmCalls !== undefined && (
              <label className="flex items-center gap-1">
                <Check
                  type="checkbox"
                  checked={keep.maxLlmCalls ?? false}
                  onChange={(e) => setKeep({ ...keep, maxLlmCalls: e.target.checked })}
                />
                at most {suggested.maxLlmCalls} LLM calls
              </label>
            )}
          </fieldset>
          <div className="flex items-center gap-2">
            <Button
              variant="primary"
              type="submit"
              className="px-3 font-normal"
              disabled={adding.isPending || !target}
              data-testid="add-to-suite"
            >
              {adding.isPending ? "Adding…" : "Add"}
            </Button>
            <DrawerClose className={buttonClass("secondary")}>Close</DrawerClose>
          </div>
          {adding.data && (
            <p className="text-xs text-emerald-800" role="status" data-testid="added-to-suite">
              Added as question {adding.data.questions.length} of{" "}
              <a className="underline" href={suiteHref(bankId, adding.data.name)}>
                {adding.data.name}
              </a>{" "}
              (version {adding.data.version}).
            </p>
          )}
          {adding.error && (
            <p className="text-xs text-red-700" role="alert">
              {adding.error.message}
            </p>
          )}
        </form>
      </DrawerContent>
    </Drawer>
  );
}
