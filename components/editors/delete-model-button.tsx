"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import type { ActionResult } from "@/lib/contracts/errors";
import type { Deleted, MentalModelRef } from "@/lib/contracts/mental-models";
import { unwrap } from "@/lib/query/unwrap";

/** Delete behind a confirmation dialog; runs that read the model keep their own copy. */
export function DeleteModelButton({
  bankId,
  id,
  name,
  versions,
  readBy,
  remove,
}: {
  bankId: string;
  id: string;
  name: string;
  versions: number;
  readBy: number;
  remove: (input: MentalModelRef) => Promise<ActionResult<Deleted>>;
}) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const mutation = useMutation({
    mutationFn: () => unwrap(remove({ bankId, id })),
    onSuccess: () => {
      setOpen(false);
      router.push(`/mental-models?bank=${encodeURIComponent(bankId)}`);
      router.refresh();
    },
  });
  return (
    <ConfirmDialog
      open={open}
      onOpenChange={setOpen}
      testId="delete-dialog"
      confirmTestId="confirm-delete"
      trigger={
        <button
          type="button"
          className="rounded border border-red-200 bg-white px-2.5 py-1 font-medium text-[12px] text-red-700 hover:bg-red-50"
          data-testid="delete-model"
        >
          Delete…
        </button>
      }
      title={<>Delete “{name}”?</>}
      description={
        <>
          The model leaves the bank: lists, search and reflect stop finding it. Its {versions}{" "}
          {versions === 1 ? "version stays" : "versions stay"} readable, read-only
          {readBy > 0 ? `, so the ${readBy} runs that read it still link to what they saw` : ""}.
        </>
      }
      error={
        mutation.error ? (
          <p className="mt-2 text-[12px] text-red-700" role="alert">
            {mutation.error.message}
          </p>
        ) : null
      }
      confirmLabel={mutation.isPending ? "Deleting…" : "Delete"}
      pending={mutation.isPending}
      onConfirm={() => mutation.mutate()}
    />
  );
}
