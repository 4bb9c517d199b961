"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { unwrap } from "@/lib/client/unwrap";
import { type ActionResult, isAppError } from "@/lib/contracts/errors";
import { LIMITS } from "@/lib/contracts/fields";
import type { NewSkillInput, Skill } from "@/lib/contracts/skills";
import { CharCount, OverLimitNote, overLimitReason } from "./char-count";

/** Creates a skill from a name and a mission (every other field starts at its default); opens its editor. */
export function NewSkillForm({
  bankId,
  create,
}: {
  bankId: string;
  create: (input: NewSkillInput) => Promise<ActionResult<Skill>>;
}) {
  const router = useRouter();
  const [name, setName] = useState("");
  const [mission, setMission] = useState("");
  const mutation = useMutation({
    mutationFn: () =>
      unwrap(create({ bankId, skill: { name, mission, retrieval: { types: ["observation", "episodic"] } } })),
    onSuccess: (skill) => router.push(`/skills/${encodeURIComponent(skill.id)}?bank=${encodeURIComponent(bankId)}`),
  });
  const blocked = overLimitReason([{ label: "the mission", value: mission, max: LIMITS.missionChars }], "create it");
  const blockedId = useId();
  const errors = isAppError(mutation.error) ? (mutation.error.details.fieldErrors ?? {}) : {};
  // A conflict (the name is taken in the bank) is about the name: the name field is marked invalid
  // and described by the message, not only the form's alert.
  const nameError = errors["skill.name"] ?? (isAppError(mutation.error, "conflict") ? mutation.error.message : null);
  return (
    <form
      className="mb-4 grid grid-cols-1 gap-2 rounded border border-slate-200 bg-white p-3 md:grid-cols-[minmax(0,1fr)_minmax(0,3fr)_auto]"
      aria-label="New skill"
      data-testid="new-skill-form"
      onSubmit={(e) => {
        e.preventDefault();
        mutation.mutate();
      }}
    >
      <Field label="New skill: name" error={nameError}>
        <Input
          className="w-full"
          value={name}
          onChange={(e) => setName(e.target.value)}
          aria-label="Skill name"
          data-testid="new-skill-name"
        />
      </Field>
      <Field
        label="Mission (one paragraph)"
        error={errors["skill.mission"]}
        counter={<CharCount value={mission} max={LIMITS.missionChars} testId="mission-count" />}
      >
        <Input
          className="w-full"
          value={mission}
          onChange={(e) => setMission(e.target.value)}
          aria-label="Mission"
          data-testid="new-skill-mission"
        />
      </Field>
      <div className="flex items-start pt-4">
        <Button
          variant="primary"
          size="md"
          type="submit"
          disabled={mutation.isPending || !name.trim() || blocked !== null}
          aria-describedby={blocked ? blockedId : undefined}
          className="px-4"
          data-testid="create-skill"
        >
          {mutation.isPending ? "Creating…" : "Create skill"}
        </Button>
      </div>
      <div className="md:col-span-3">
        <OverLimitNote id={blockedId} reason={blocked} />
      </div>
      {mutation.error ? (
        <p className="text-xs text-red-700 md:col-span-3" role="alert" data-testid="create-skill-error">
          {mutation.error.message}
        </p>
      ) : null}
    </form>
  );
}
