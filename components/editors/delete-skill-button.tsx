"use client";

import type { ActionResult } from "@/lib/contracts/errors";
import type { SkillDeleted, SkillRef } from "@/lib/contracts/skills";
import { DeleteButton } from "./delete-button";

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
  return (
    <DeleteButton
      remove={() => remove({ bankId, id })}
      listHref={`/skills?bank=${encodeURIComponent(bankId)}`}
      title={<>Delete skill “{name}”?</>}
      description="The skill and its versions leave the bank; runs that used it keep the skill as they ran it."
      testIds={{ button: "delete-skill", dialog: "delete-skill-dialog", confirm: "confirm-delete-skill" }}
      className="ml-auto"
    />
  );
}
