"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useRef } from "react";
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
  const dialog = useRef<HTMLDialogElement>(null);
  const mutation = useMutation({
    mutationFn: () => unwrap(remove({ bankId, id })),
    onSuccess: () => {
      dialog.current?.close();
      router.push(`/mental-models?bank=${encodeURIComponent(bankId)}`);
      router.refresh();
    },
  });
  return (
    <>
      <button
        type="button"
        onClick={() => dialog.current?.showModal()}
        className="rounded border border-red-200 bg-white px-2.5 py-1 font-medium text-[12px] text-red-700 hover:bg-red-50"
        data-testid="delete-model"
      >
        Delete…
      </button>
      <dialog
        ref={dialog}
        aria-labelledby="delete-model-title"
        className="m-auto w-[26rem] rounded border border-slate-300 bg-white p-4 shadow-lg backdrop:bg-slate-900/30"
        data-testid="delete-dialog"
      >
        <h2 id="delete-model-title" className="font-semibold text-[14px]">
          Delete “{name}”?
        </h2>
        <p className="mt-1 text-[12px] text-slate-600">
          The model and its {versions} {versions === 1 ? "version" : "versions"} are removed from the bank; reflect
          stops finding it. {readBy > 0 ? `The ${readBy} runs that read it keep the snapshot they saw.` : ""}
        </p>
        {mutation.error ? (
          <p className="mt-2 text-[12px] text-red-700" role="alert">
            {mutation.error.message}
          </p>
        ) : null}
        <div className="mt-3 flex justify-end gap-2">
          <button
            type="button"
            onClick={() => dialog.current?.close()}
            className="rounded border border-slate-300 px-3 py-1 text-[12px]"
          >
            Cancel
          </button>
          <button
            type="button"
            disabled={mutation.isPending}
            onClick={() => mutation.mutate()}
            className="rounded bg-red-600 px-3 py-1 font-medium text-[12px] text-white hover:bg-red-700 disabled:opacity-50"
            data-testid="confirm-delete"
          >
            {mutation.isPending ? "Deleting…" : "Delete"}
          </button>
        </div>
      </dialog>
    </>
  );
}
