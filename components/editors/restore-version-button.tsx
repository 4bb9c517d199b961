"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { Button } from "@/components/ui/button";
import { unwrap } from "@/lib/client/unwrap";
import type { ActionResult } from "@/lib/contracts/errors";
import type { MentalModelDetail, RestoreVersionInput } from "@/lib/contracts/mental-models";
import { useConfirmOverUnsaved } from "./unsaved-edit";

/** Restores an old version as a new one on top of the current version (refused if it moved on). */
export function RestoreVersionButton({
  bankId,
  id,
  version,
  current,
  restore,
}: {
  bankId: string;
  id: string;
  version: number;
  current: number;
  restore: (input: RestoreVersionInput) => Promise<ActionResult<MentalModelDetail>>;
}) {
  const router = useRouter();
  const mutation = useMutation({
    mutationFn: () => unwrap(restore({ bankId, id, version, expectedVersion: current })),
    onSuccess: () => router.refresh(),
  });
  const confirm = useConfirmOverUnsaved("Restore");
  return (
    <>
      {confirm.dialog}
      <Button
        size="xs"
        className="text-slate-700"
        disabled={mutation.isPending}
        onClick={() => confirm.ask(() => mutation.mutate())}
        data-testid="restore-version"
      >
        {/* The accessible name starts with the visible text (WCAG 2.5.3), then says which version. */}
        {mutation.isPending ? "Restoring…" : `Restore as v${current + 1}`}
        <span className="sr-only"> (restores version {version})</span>
      </Button>
      {mutation.error ? (
        <p className="basis-full text-2xs text-red-700" role="alert" data-testid="restore-error">
          {mutation.error.message}
        </p>
      ) : null}
    </>
  );
}
