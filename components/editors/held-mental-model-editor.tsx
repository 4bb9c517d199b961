"use client";

import { useState } from "react";
import type { ActionResult } from "@/lib/contracts/errors";
import type { MentalModelDetail, MentalModelDraft } from "@/lib/contracts/mental-models";
import { MentalModelEditor } from "./mental-model-editor";

/**
 * The editor of the current version, opened afresh for each new version (keyed by it), except
 * while a save conflict holds it: then the page around it refreshes (the Versions list shows the
 * version someone else saved) and the form keeps the unsaved edit on the version it was loaded
 * from, until the edit is saved or the newer version is loaded.
 */
export function HeldMentalModelEditor({
  bankId,
  model,
  save,
}: {
  bankId: string;
  model: MentalModelDetail;
  save: (draft: MentalModelDraft) => Promise<ActionResult<MentalModelDetail>>;
}) {
  const [held, setHeld] = useState<MentalModelDetail | null>(null);
  const shown = held ?? model;
  return (
    <MentalModelEditor
      key={shown.version}
      bankId={bankId}
      model={shown}
      save={save}
      onHold={(hold) => setHeld(hold ? shown : null)}
    />
  );
}
