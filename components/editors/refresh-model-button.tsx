"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { unwrap } from "@/lib/client/unwrap";
import type { ActionResult } from "@/lib/contracts/errors";
import type {
  AcceptRefreshInput,
  DiscardRefreshInput,
  MentalModelDetail,
  RefreshMentalModelInput,
  RefreshProposal,
} from "@/lib/contracts/mental-models";
import { diffLines } from "@/lib/text/text-diff";
import { TextDiff } from "./text-diff";
import { useConfirmOverUnsaved } from "./unsaved-edit";

/**
 * Refresh now: re-generates the content with a low-budget reflect run over the source query
 * (mental-model tier excluded) and shows it as a *proposal*, diffed against the current version.
 * Accept stores it as a new version (refused if the model moved on meanwhile); Discard changes
 * nothing. An unusable answer (a failed run, no evidence, placeholder text) is shown as such and
 * has no Accept. `actions` sit beside the button; the proposal spans the header's full width.
 */
export function RefreshModelButton({
  bankId,
  id,
  version,
  refresh,
  accept,
  discard,
  actions,
}: {
  bankId: string;
  id: string;
  version: number;
  refresh: (input: RefreshMentalModelInput) => Promise<ActionResult<RefreshProposal>>;
  accept: (input: AcceptRefreshInput) => Promise<ActionResult<MentalModelDetail>>;
  discard: (input: DiscardRefreshInput) => Promise<ActionResult<void>>;
  actions?: ReactNode;
}) {
  const router = useRouter();
  // The refresh runs list shows the new run as an open proposal, then as accepted or discarded.
  const propose = useMutation({
    mutationFn: () => unwrap(refresh({ bankId, id, expectedVersion: version })),
    onSuccess: () => router.refresh(),
  });
  const drop = useMutation({
    mutationFn: (p: RefreshProposal) => unwrap(discard({ bankId, id, runId: p.runId })),
    onSuccess: () => {
      propose.reset();
      router.refresh();
    },
  });
  const save = useMutation({
    mutationFn: (p: RefreshProposal) => unwrap(accept({ bankId, id, runId: p.runId, expectedVersion: p.baseVersion })),
    onSuccess: () => {
      propose.reset();
      router.refresh();
    },
  });
  const proposal = propose.data;
  const confirm = useConfirmOverUnsaved("Accept");
  const runLink = (runId: string) => (
    <Link href={`/runs/${runId}`} className="text-indigo-700 underline" data-testid="refresh-run-link">
      Open the refresh run
    </Link>
  );
  return (
    <>
      {confirm.dialog}
      <div className="ml-auto flex items-center gap-2" data-testid="refresh-model">
        {save.data ? (
          <p className="text-xs text-emerald-800" role="status" data-testid="refresh-outcome">
            Refreshed as version {save.data.version}.
          </p>
        ) : null}
        <Button
          disabled={propose.isPending || save.isPending}
          onClick={() => {
            save.reset();
            drop.reset();
            propose.mutate();
          }}
          className="font-medium"
          data-testid="refresh-now"
          title="Run reflect over the source query (low budget, mental models excluded) and show the answer as a proposal to accept or discard"
        >
          {propose.isPending ? "Refreshing… (running reflect)" : "Refresh now"}
        </Button>
        {actions}
      </div>
      {propose.error ? (
        <p className="basis-full text-xs text-red-700" role="alert">
          {propose.error.message}
        </p>
      ) : null}
      {proposal ? (
        <section
          aria-labelledby="refresh-proposal-heading"
          className={`basis-full rounded border p-3 ${proposal.usable ? "border-indigo-200 bg-white" : "border-amber-300 bg-amber-50"}`}
          data-testid="refresh-proposal"
          data-usable={proposal.usable}
        >
          <h2 id="refresh-proposal-heading" className="font-semibold text-[13px] text-slate-800">
            {proposal.usable
              ? `Refresh proposal: version ${proposal.baseVersion} → ${proposal.baseVersion + 1} (not saved yet)`
              : "Refresh result is unusable: nothing to accept"}
          </h2>
          {proposal.usable ? (
            <>
              <p className="mt-0.5 mb-2 text-xs text-slate-600">
                The current content (<span className="text-red-800">−</span>) against the refresh answer (
                <span className="text-emerald-800">+</span>), based on {proposal.basedOnIds.length} cited{" "}
                {proposal.basedOnIds.length === 1 ? "memory" : "memories"}. {runLink(proposal.runId)}
              </p>
              <TextDiff ops={diffLines(proposal.current, proposal.proposed)} by="lines" testId="refresh-diff" />
            </>
          ) : (
            <div className="mt-0.5 space-y-1 text-xs text-amber-900" data-testid="refresh-unusable">
              <p>{proposal.reason}</p>
              {proposal.proposed ? (
                <p>
                  The run answered: <q className="italic">{proposal.proposed.slice(0, 300)}</q>
                </p>
              ) : null}
              <p>{runLink(proposal.runId)}</p>
            </div>
          )}
          <div className="mt-2 flex items-center gap-2">
            {proposal.usable ? (
              <Button
                variant="primary"
                className="border border-indigo-600"
                disabled={save.isPending}
                onClick={() => confirm.ask(() => save.mutate(proposal))}
                data-testid="accept-refresh"
              >
                {save.isPending ? "Saving…" : `Accept as version ${proposal.baseVersion + 1}`}
              </Button>
            ) : null}
            <Button
              disabled={save.isPending || drop.isPending}
              onClick={() => (proposal.usable ? drop.mutate(proposal) : propose.reset())}
              className="font-medium"
              data-testid="discard-refresh"
            >
              {proposal.usable ? "Discard" : "Close"}
            </Button>
            {(save.error ?? drop.error) ? (
              <p className="text-xs text-red-700" role="alert" data-testid="accept-error">
                {(save.error ?? drop.error)?.message}
              </p>
            ) : null}
          </div>
        </section>
      ) : null}
    </>
  );
}
