"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type ReactNode, useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { unwrap } from "@/lib/client/unwrap";
import type { ActionResult } from "@/lib/contracts/errors";

/** Delete behind a confirmation dialog, then go to the list the entity was in. */
export function DeleteButton({
  remove,
  listHref,
  title,
  description,
  testIds,
  className = "",
}: {
  remove: () => Promise<ActionResult<unknown>>;
  listHref: string;
  title: ReactNode;
  description: ReactNode;
  testIds: { button: string; dialog: string; confirm: string };
  className?: string;
}) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const mutation = useMutation({
    mutationFn: () => unwrap(remove()),
    onSuccess: () => {
      setOpen(false);
      router.push(listHref);
      router.refresh();
    },
  });
  return (
    <ConfirmDialog
      open={open}
      onOpenChange={setOpen}
      testId={testIds.dialog}
      confirmTestId={testIds.confirm}
      trigger={
        <Button variant="danger-subtle" className={className} data-testid={testIds.button}>
          Delete…
        </Button>
      }
      title={title}
      description={description}
      error={
        mutation.error ? (
          <p className="mt-2 text-xs text-red-700" role="alert">
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
