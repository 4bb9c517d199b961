"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import type { ActionResult } from "@/lib/contracts/errors";
import type { RefreshMentalModelInput, RefreshOutcome } from "@/lib/contracts/mental-models";
import { unwrap } from "@/lib/query/unwrap";

/**
 * Refresh now: re-generates the content with a low-budget reflect run over the source query
 * (mental-model tier excluded). The run is linked either way; a run without a usable answer
 * leaves the content as it was.
 */
export function RefreshModelButton({
  bankId,
  id,
  version,
  refresh,
}: {
  bankId: string;
  id: string;
  version: number;
  refresh: (input: RefreshMentalModelInput) => Promise<ActionResult<RefreshOutcome>>;
}) {
  const router = useRouter();
  const mutation = useMutation({
    mutationFn: () => unwrap(refresh({ bankId, id, expectedVersion: version })),
    onSuccess: (outcome) => {
      if (outcome.refreshed) router.refresh();
    },
  });
  const outcome = mutation.data;
  return (
    <div className="flex items-center gap-2" data-testid="refresh-model">
      <button
        type="button"
        disabled={mutation.isPending}
        onClick={() => mutation.mutate()}
        className="rounded border border-slate-300 bg-white px-2.5 py-1 font-medium text-[12px] text-slate-800 hover:bg-slate-50 disabled:opacity-50"
        data-testid="refresh-now"
        title="Run reflect over the source query (low budget, mental models excluded) and store the answer as a new version"
      >
        {mutation.isPending ? "Refreshing… (running reflect)" : "Refresh now"}
      </button>
      {outcome ? (
        <p
          className={`text-[12px] ${outcome.refreshed ? "text-emerald-800" : "text-amber-900"}`}
          role="status"
          data-testid="refresh-outcome"
        >
          {outcome.refreshed ? `Refreshed as version ${outcome.model.version}.` : outcome.reason}{" "}
          <Link href={`/runs/${outcome.runId}`} className="text-indigo-700 underline" data-testid="refresh-run-link">
            Open the refresh run
          </Link>
        </p>
      ) : null}
      {mutation.error ? (
        <p className="text-[12px] text-red-700" role="alert">
          {mutation.error.message}
        </p>
      ) : null}
    </div>
  );
}
