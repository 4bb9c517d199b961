"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import type { ActionResult } from "@/lib/contracts/errors";
import type { SkillDeleted, SkillRef } from "@/lib/contracts/skills";
import { unwrap } from "@/lib/query/unwrap";

/** Delete a skill behind a confirmation; runs that used it keep the snapshot they ran with. */
export function DeleteSkillButton({
  bankId,
  id,
  name,
  remove,
}: {
  bankId: string;
  id: string;
  name: string;
  remove: (input: SkillRef) => Promise<ActionResult<SkillDeleted>>;
}) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const mutation = useMutation({
    mutationFn: () => unwrap(remove({ bankId, id })),
    onSuccess: () => {
      setOpen(false);
      router.push(`/skills?bank=${encodeURIComponent(bankId)}`);
      router.refresh();
    },
  });
  return (
    <ConfirmDialog
      open={open}
      onOpenChange={setOpen}
      testId="delete-skill-dialog"
      confirmTestId="confirm-delete-skill"
      trigger={
        <button
          type="button"
          className="ml-auto rounded border border-red-200 bg-white px-2.5 py-1 font-medium text-[12px] text-red-700 hover:bg-red-50"
          data-testid="delete-skill"
        >
          Delete…
        </button>
      }
      title={<>Delete skill “{name}”?</>}
      description="The skill and its versions leave the bank; runs that used it keep the skill as they ran it."
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
