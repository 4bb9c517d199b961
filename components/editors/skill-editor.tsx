"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { ChipInput } from "@/components/ui/chip-input";
import { Field } from "@/components/ui/field";
import { Check, Input, Select, Textarea } from "@/components/ui/input";
import { unwrap } from "@/lib/client/unwrap";
import { type ActionResult, conflictCurrent, isAppError } from "@/lib/contracts/errors";
import { LIMITS } from "@/lib/contracts/fields";
import type { RunStarted } from "@/lib/contracts/runs";
import { Skill, type SkillDraft, type TrySkillInput } from "@/lib/contracts/skills";
import { retrievalTypeLabel } from "@/lib/timeline/format";
import { CharCount, OverLimitNote, overLimitReason } from "./char-count";
import { ScopeWarning } from "./scope-warning";
import { SaveVersionButton, useVersionedEditor, VersionedEditorForm, type VersionedField } from "./versioned-editor";

const TYPES = ["observation", "episodic"] as const;

/** The form's values. */
type SkillFields = {
  mission: string;
  disposition: string[];
  scope: string;
  tags: string[];
  types: Skill["retrieval"]["types"];
  budget: Skill["budget"];
  anchorEvery: string;
  outputFormat: Skill["outputFormat"];
  answerFormat: Skill["answerFormat"];
};

const fieldsOf = (s: Skill): SkillFields => ({
  mission: s.mission,
  disposition: s.disposition,
  scope: s.retrieval.scope,
  tags: s.retrieval.tags,
  types: s.retrieval.types,
  budget: s.budget,
  anchorEvery: String(s.anchorEvery),
  outputFormat: s.outputFormat,
  answerFormat: s.answerFormat,
});

/** The conflict list, field by field. */
const SPEC: readonly VersionedField<SkillFields>[] = [
  { label: "mission", text: (f) => f.mission, by: "words" },
  { label: "disposition", text: (f) => f.disposition.join(", "), by: "words" },
  { label: "scope", text: (f) => f.scope, by: "words" },
  { label: "retrieval tags", text: (f) => f.tags.join(", "), by: "words" },
  { label: "memory types", text: (f) => f.types.map(retrievalTypeLabel).join(", "), by: "words" },
  { label: "budget", text: (f) => f.budget, by: "words" },
  { label: "anchor every", text: (f) => f.anchorEvery, by: "words" },
  { label: "output format", text: (f) => f.outputFormat, by: "words" },
  { label: "answer format", text: (f) => f.answerFormat, by: "words" },
];

/**
 * Edits a skill. Saving makes a new version (refused as a conflict when someone saved first);
 * "Try" runs the unsaved draft on a question and opens the run.
 */
export function SkillEditor({
  skill,
  save,
  tryDraft,
  permittedTeams = [],
}: {
  skill: Skill;
  /** The bank's permitted teams, to warn before a scope it refuses. */
  permittedTeams?: readonly string[];
  save: (draft: SkillDraft) => Promise<ActionResult<Skill>>;
  tryDraft: (input: TrySkillInput) => Promise<ActionResult<RunStarted>>;
}) {
  const router = useRouter();
  const [mission, setMission] = useState(skill.mission);
  const [disposition, setDisposition] = useState(skill.disposition);
  const [scope, setScope] = useState(skill.retrieval.scope);
  const [tags, setTags] = useState(skill.retrieval.tags);
  const [types, setTypes] = useState(skill.retrieval.types);
  const [budget, setBudget] = useState(skill.budget);
  const [anchorEvery, setAnchorEvery] = useState(String(skill.anchorEvery));
  const [outputFormat, setOutputFormat] = useState(skill.outputFormat);
  const [answerFormat, setAnswerFormat] = useState(skill.answerFormat);
  const [question, setQuestion] = useState("");

  const draft = (): SkillDraft => ({
    bankId: skill.bankId,
    id: skill.id,
    expectedVersion: skill.version,
    mission,
    disposition,
    retrieval: { tags, types, scope },
    budget,
    anchorEvery: Number(anchorEvery),
    outputFormat,
    answerFormat,
  });

  // Saving what is already there would make no new version: the button waits for a change.
  const dirty =
    mission !== skill.mission ||
    disposition.join("\n") !== skill.disposition.join("\n") ||
    scope !== skill.retrieval.scope ||
    tags.join("\n") !== skill.retrieval.tags.join("\n") ||
    types.join("\n") !== skill.retrieval.types.join("\n") ||
    budget !== skill.budget ||
    anchorEvery !== String(skill.anchorEvery) ||
    outputFormat !== skill.outputFormat ||
    answerFormat !== skill.answerFormat;
  // Over a limit the server would refuse it: the button says why instead.
  const missionField = { label: "the mission", value: mission, max: LIMITS.missionChars };
  const saveBlocked = overLimitReason([missionField], "save");
  const tryBlocked = overLimitReason(
    [missionField, { label: "the question", value: question, max: LIMITS.questionChars }],
    "try it",
  );
  const saveBlockedId = useId();
  const tryBlockedId = useId();

  const mine: SkillFields = {
    mission,
    disposition,
    scope,
    tags,
    types,
    budget,
    anchorEvery,
    outputFormat,
    answerFormat,
  };
  const editor = useVersionedEditor({
    entity: `skill:${skill.bankId}:${skill.id}`,
    baseVersion: skill.version,
    fields: mine,
    dirty,
    apply: (d) => {
      setMission(d.mission);
      setDisposition(d.disposition);
      setScope(d.scope);
      setTags(d.tags);
      setTypes(d.types);
      setBudget(d.budget);
      setAnchorEvery(d.anchorEvery);
      setOutputFormat(d.outputFormat);
      setAnswerFormat(d.answerFormat);
    },
  });

  const saving = useMutation({
    mutationFn: (d: SkillDraft) => unwrap(save(d)),
    onSuccess: () => {
      editor.settled();
      router.refresh();
    },
  });
  const trying = useMutation({
    mutationFn: (input: TrySkillInput) => unwrap(tryDraft(input)),
    onSuccess: ({ runId }) => {
      // The draft comes back when Back returns here; the run itself is labelled a draft.
      if (dirty) editor.draft.markTried(runId);
      editor.guard.allow();
      router.push(`/runs/${runId}`);
    },
  });
  const conflict = isAppError(saving.error, "conflict") ? saving.error : null;
  const failure = saving.error ?? trying.error;
  const fieldErrors = isAppError(failure) ? (failure.details.fieldErrors ?? {}) : {};
  const errorsOf = (...keys: string[]) => keys.flatMap((k) => fieldErrors[k] ?? fieldErrors[`draft.${k}`] ?? []);
  const newer = conflict ? conflictCurrent(conflict, Skill) : undefined;

  return (
    <VersionedEditorForm
      testId="skill-editor"
      editor={editor}
      spec={SPEC}
      mine={mine}
      conflict={
        conflict
          ? {
              message: conflict.message,
              newer: newer ? { version: newer.version, fields: fieldsOf(newer) } : null,
              onLoadNewer: () => router.refresh(),
            }
          : null
      }
      onSubmit={() => saving.mutate(draft())}
    >
      <Field
        label="Mission (one paragraph)"
        error={errorsOf("mission")}
        counter={<CharCount value={mission} max={LIMITS.missionChars} testId="mission-count" />}
      >
        <Textarea
          className="w-full h-28 resize-y leading-relaxed"
          value={mission}
          onChange={(e) => setMission(e.target.value.replace(/\n+/g, " "))}
          data-testid="skill-mission"
          aria-label="Mission"
        />
      </Field>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <Field label="Disposition (adjectives)" error={errorsOf("disposition")}>
          <ChipInput
            label="Disposition"
            values={disposition}
            onChange={setDisposition}
            placeholder="e.g. concise"
            testId="skill-disposition"
          />
        </Field>
        <Field label="Output format" error={errorsOf("outputFormat")}>
          <Input
            className="w-full"
            value={outputFormat}
            onChange={(e) => setOutputFormat(e.target.value)}
            aria-label="Output format"
            data-testid="skill-output-format"
          />
        </Field>
      </div>
      <fieldset className="rounded border border-slate-200 p-2.5">
        <legend className="px-1 text-2xs text-slate-500 uppercase tracking-wide">Retrieval directive</legend>
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-[1fr_1fr_auto]">
          <Field label="Scope default" error={errorsOf("retrieval.scope")}>
            <Input
              className="w-full"
              value={scope}
              onChange={(e) => setScope(e.target.value)}
              aria-label="Scope default"
              data-testid="skill-scope"
            />
            <ScopeWarning scope={scope} permittedTeams={permittedTeams} />
          </Field>
          <Field label="Tags" error={errorsOf("retrieval.tags")}>
            <ChipInput
              label="Retrieval tags"
              values={tags}
              onChange={setTags}
              placeholder="any tag"
              testId="skill-tags"
            />
          </Field>
          <Field group label="Memory types" error={errorsOf("retrieval.types")}>
            <div className="flex h-[30px] items-center gap-3">
              {TYPES.map((t) => (
                <label key={t} className="flex items-center gap-1 text-xs">
                  <Check
                    type="checkbox"
                    checked={types.includes(t)}
                    onChange={(e) => setTypes(e.target.checked ? [...types, t] : types.filter((x) => x !== t))}
                  />
                  {retrievalTypeLabel(t)}
                </label>
              ))}
            </div>
          </Field>
        </div>
      </fieldset>
      <div className="grid grid-cols-2 gap-3 sm:grid-cols-4">
        <Field label="Budget" error={errorsOf("budget")}>
          <Select
            className="w-full"
            value={budget}
            onChange={(e) => setBudget(e.target.value as Skill["budget"])}
            aria-label="Budget"
          >
            <option value="low">low (5 iterations)</option>
            <option value="mid">mid (10)</option>
            <option value="high">high (20)</option>
          </Select>
        </Field>
        <Field label="Answer format" error={errorsOf("answerFormat")}>
          <Select
            className="w-full"
            value={answerFormat}
            onChange={(e) => setAnswerFormat(e.target.value as Skill["answerFormat"])}
            aria-label="Answer format"
            data-testid="skill-answer-format"
            title="JSON switches off the output guard's check for a bare JSON answer; prose keeps it."
          >
            <option value="prose">prose (default)</option>
            <option value="json">JSON</option>
          </Select>
        </Field>
        <Field label="Anchor every (iterations)" error={errorsOf("anchorEvery")}>
          <Input
            type="number"
            min={1}
            max={50}
            className="w-full"
            value={anchorEvery}
            onChange={(e) => setAnchorEvery(e.target.value)}
            aria-label="Anchor every"
          />
        </Field>
        <div className="col-span-2 flex items-end gap-3">
          <SaveVersionButton
            pending={saving.isPending}
            dirty={dirty}
            blocked={saveBlocked}
            blockedId={saveBlockedId}
            version={skill.version}
            title={dirty ? undefined : "Nothing changed yet"}
            testId="save-skill"
          />
          <span className="pb-1.5 text-2xs text-slate-500">editing version {skill.version}</span>
          <OverLimitNote id={saveBlockedId} reason={saveBlocked} />
        </div>
      </div>
      {failure && !conflict ? (
        <p className="text-xs text-red-700" role="alert" data-testid="save-error">
          {failure.message}
        </p>
      ) : null}
      <div className="flex items-end gap-2 border-slate-100 border-t pt-3">
        <div className="flex-1">
          <Field
            label="Try the draft (runs it without saving)"
            error={fieldErrors.question}
            counter={<CharCount value={question} max={LIMITS.questionChars} testId="question-count" />}
          >
            <Input
              className="w-full"
              value={question}
              onChange={(e) => setQuestion(e.target.value)}
              placeholder="What did we decide about the launch date?"
              aria-label="Question to try the draft on"
              data-testid="try-question"
            />
          </Field>
        </div>
        <Button
          size="md"
          disabled={trying.isPending || tryBlocked !== null}
          aria-describedby={tryBlocked ? tryBlockedId : undefined}
          onClick={() => trying.mutate({ draft: draft(), question })}
          className="font-medium"
          data-testid="try-skill"
        >
          {trying.isPending ? "Starting…" : "Try"}
        </Button>
      </div>
      <OverLimitNote id={tryBlockedId} reason={tryBlocked} />
    </VersionedEditorForm>
  );
}
