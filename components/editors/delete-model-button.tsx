"use client";

import type { ActionResult } from "@/lib/contracts/errors";
import type { Deleted, MentalModelRef } from "@/lib/contracts/mental-models";
import { plural } from "@/lib/timeline/format";
import { DeleteButton } from "./delete-button";

/** Delete behind a confirmation dialog; the versions stay readable (a tombstone), so runs keep their links. */
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
  return (
    <DeleteButton
      remove={() => remove({ bankId, id })}
      listHref={`/mental-models?bank=${encodeURIComponent(bankId)}`}
      title={<>Delete “{name}”?</>}
      description={
        <>
          The model leaves the bank: lists, search and reflect stop finding it. Its {versions}{" "}
          {versions === 1 ? "version stays" : "versions stay"} readable, read-only
          {readBy > 0 ? `, so the ${plural(readBy, "run")} that read it still link to what they saw` : ""}.
        </>
      }
      testIds={{ button: "delete-model", dialog: "delete-dialog", confirm: "confirm-delete" }}
    />
  );
}
