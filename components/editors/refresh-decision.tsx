"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { Button } from "@/components/ui/button";
import { unwrap } from "@/lib/client/unwrap";
import type { ActionResult } from "@/lib/contracts/errors";
import type { AcceptRefreshInput, DiscardRefreshInput, MentalModelDetail } from "@/lib/contracts/mental-models";
import { useConfirmOverUnsaved } from "./unsaved-edit";

export interface RefreshDecisionActions {
  accept: (input: AcceptRefreshInput) => Promise<ActionResult<MentalModelDetail>>;
  discard: (input: DiscardRefreshInput) => Promise<ActionResult<void>>;
}

/**
 * Accept / Discard for an open refresh proposal, wherever it is shown (the run page, the editor's
 * Refresh runs list). The server re-checks that the run is this model's open proposal on the
 * version it was made on; the page then reloads to show what became of it.
 */
export function RefreshDecision({
  bankId,
  modelId,
  runId,
  baseVersion,
  accept,
  discard,
}: {
  bankId: string;
  modelId: string;
  runId: string;
  baseVersion: number;
} & RefreshDecisionActions) {
  const router = useRouter();
  const confirm = useConfirmOverUnsaved("Accept");
  const save = useMutation({
    mutationFn: () => unwrap(accept({ bankId, id: modelId, runId, expectedVersion: baseVersion })),
    onSuccess: () => router.refresh(),
  });
  const drop = useMutation({
    mutationFn: () => unwrap(discard({ bankId, id: modelId, runId })),
    onSuccess: () => router.refresh(),
  });
  const error = save.error ?? drop.error;
  return (
    <span className="inline-flex flex-wrap items-center gap-1.5" data-testid="refresh-decision">
      {confirm.dialog}
      <Button
        variant="primary"
        disabled={save.isPending || drop.isPending}
        onClick={() => confirm.ask(() => save.mutate())}
        className="border border-indigo-600 px-2 py-0.5"
        data-testid="proposal-accept"
      >
        {save.isPending ? "Saving…" : `Accept as version ${baseVersion + 1}`}
      </Button>
      <Button
        disabled={save.isPending || drop.isPending}
        onClick={() => drop.mutate()}
        className="px-2 py-0.5 font-medium"
        data-testid="proposal-discard"
      >
        Discard
      </Button>
      {error ? (
        <span className="text-xs text-red-700" role="alert" data-testid="proposal-error">
          {error.message}
        </span>
      ) : null}
    </span>
  );
}
