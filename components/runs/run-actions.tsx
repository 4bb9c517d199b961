"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type ReactNode, useId, useState } from "react";
import { Button, buttonClass } from "@/components/ui/button";
import { Input, Select } from "@/components/ui/input";
import { unwrap } from "@/lib/client/unwrap";
import type { ActionResult } from "@/lib/contracts/errors";
import type { ForkInput, RerunContext, RerunInput, SavedChanges, SaveRerunChangesInput } from "@/lib/contracts/rerun";
import type { RunStarted } from "@/lib/contracts/runs";
import { RerunDrawer, type SuiteRun } from "./rerun-drawer";

/** Up to this many iterations the fork point is a list; beyond, a number input. */
const PICKER_MAX = 25;

/** The curation loop's entry points on a run page: re-run with changes, fork, compare with the parent. */
export function RunActions({
  data,
  iterations,
  finished,
  parentRunId,
  rerun,
  saveChanges,
  fork,
  addToSuite,
  suiteRun,
}: {
  data: RerunContext;
  iterations: number;
  finished: boolean;
  parentRunId: string | null;
  rerun: (input: RerunInput) => Promise<ActionResult<RunStarted>>;
  saveChanges: (input: SaveRerunChangesInput) => Promise<ActionResult<SavedChanges>>;
  fork: (input: ForkInput) => Promise<ActionResult<RunStarted>>;
  /** "Add to suite" (components/suites), once the run has finished. */
  addToSuite?: ReactNode;
  /** "Run the suite with these changes" in the re-run drawer. */
  suiteRun?: SuiteRun;
}) {
  const router = useRouter();
  const [forkAt, setForkAt] = useState(Math.min(1, Math.max(0, iterations - 1)));
  const forking = useMutation({
    mutationFn: (input: ForkInput) => unwrap(fork(input)),
    onSuccess: ({ runId }) => router.push(`/runs/${runId}`),
  });
  const forkId = useId();
  const canFork = finished && data.run.mode !== "facts" && iterations > 0;

  return (
    <div className="flex flex-wrap items-center gap-2" data-testid="run-actions">
      <RerunDrawer
        data={data}
        rerun={rerun}
        saveChanges={saveChanges}
        suiteRun={suiteRun}
        trigger={<Button data-testid="open-rerun">Re-run with changes</Button>}
      />
      <form
        className="flex items-center gap-1"
        onSubmit={(e) => {
          e.preventDefault();
          forking.mutate({ parentRunId: data.run.id, forkAt });
        }}
      >
        <span className="flex items-center gap-1 text-xs text-slate-700">
          <label htmlFor={forkId}>Fork from iteration</label>
          {iterations <= PICKER_MAX ? (
            <Select
              size="sm"
              className="px-1 py-0.5"
              value={forkAt}
              disabled={!canFork}
              onChange={(e) => setForkAt(Number(e.target.value))}
              id={forkId}
              data-testid="fork-at"
            >
              {Array.from({ length: Math.max(1, iterations) }, (_, i) => (
                <option key={i} value={i}>
                  {i}
                </option>
              ))}
            </Select>
          ) : (
            // A long run's iterations are a number to type, not a list of hundreds to scroll.
            <>
              <Input
                size="sm"
                type="number"
                inputMode="numeric"
                min={0}
                max={iterations - 1}
                className="w-20 px-1 py-0.5"
                value={forkAt}
                disabled={!canFork}
                onChange={(e) => setForkAt(Math.min(iterations - 1, Math.max(0, Math.trunc(Number(e.target.value)))))}
                id={forkId}
                data-testid="fork-at"
              />
              <span className="text-slate-600">of 0–{iterations - 1}</span>
            </>
          )}
        </span>
        <Button
          type="submit"
          disabled={!canFork || forking.isPending}
          title={
            canFork
              ? "Replays this run's model responses before the iteration, then calls the model live"
              : "Available once the run has finished (and made model calls)"
          }
          data-testid="fork"
        >
          {forking.isPending ? "Forking…" : "Fork"}
        </Button>
      </form>
      {parentRunId && (
        <a
          className={buttonClass("secondary", "sm", "text-indigo-800")}
          href={`/runs/compare?a=${encodeURIComponent(parentRunId)}&b=${encodeURIComponent(data.run.id)}`}
          data-testid="compare-with-parent"
        >
          Compare with parent
        </a>
      )}
      {addToSuite}
      {forking.error && (
        <span className="text-xs text-red-700" role="alert">
          {forking.error.message}
        </span>
      )}
    </div>
  );
}
