"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { ChipInput } from "@/components/ui/chip-input";
import { Field } from "@/components/ui/field";
import { Check, Input, Textarea } from "@/components/ui/input";
import { Tab, TabList, TabPanel, Tabs } from "@/components/ui/tabs";
import { mentalModelHref } from "@/lib/client/curation";
import { unwrap } from "@/lib/client/unwrap";
import { type ActionResult, conflictCurrent, isAppError } from "@/lib/contracts/errors";
import { LIMITS } from "@/lib/contracts/fields";
import { MentalModelDetail, type MentalModelDraft, type StaleOverrideChoice } from "@/lib/contracts/mental-models";
import { CharCount, OverLimitNote, overLimitReason } from "./char-count";
import { MarkdownPreview } from "./markdown-preview";
import { threeWayMerge } from "./three-way";
import {
  conflictFields,
  SaveVersionButton,
  useVersionedEditor,
  VersionedEditorForm,
  type VersionedField,
} from "./versioned-editor";

const OVERRIDES: { value: StaleOverrideChoice; label: string; hint: string }[] = [
  { value: "auto", label: "auto", hint: "stale when newer memories in scope exist" },
  { value: "stale", label: "force stale", hint: "reflect re-checks lower tiers" },
  { value: "fresh", label: "force fresh", hint: "reflect trusts this model" },
];

/** The form's values. */
type ModelFields = {
  name: string;
  sourceQuery: string;
  tags: string[];
  override: StaleOverrideChoice;
  content: string;
};

const fieldsOf = (m: MentalModelDetail): ModelFields => ({
  name: m.name,
  sourceQuery: m.sourceQuery,
  tags: m.tags,
  override: m.staleOverride ?? "auto",
  content: m.content,
});

/** The conflict list and the re-apply preview, field by field. */
const SPEC: readonly VersionedField<ModelFields>[] = [
  { label: "name", text: (f) => f.name, by: "words" },
  { label: "source query", text: (f) => f.sourceQuery, by: "words" },
  { label: "tags", text: (f) => f.tags.join(", "), by: "words" },
  { label: "staleness override", text: (f) => f.override, by: "words" },
  { label: "content", text: (f) => f.content, by: "lines" },
];

/**
 * Creates (model null) or edits a mental model. The draft carries the version it was loaded from;
 * a save after someone else's is refused and shown as a conflict, never applied over theirs.
 */
export function MentalModelEditor({
  bankId,
  model,
  save,
  onHold,
}: {
  bankId: string;
  model: MentalModelDetail | null;
  save: (draft: MentalModelDraft) => Promise<ActionResult<MentalModelDetail>>;
  /**
   * A save conflict holds this editor on the version it was loaded from (true) while the page
   * refreshes to show the newer version; a save or "Load newer" lets go (false).
   */
  onHold?: (hold: boolean) => void;
}) {
  const router = useRouter();
  const [name, setName] = useState(model?.name ?? "");
  const [sourceQuery, setSourceQuery] = useState(model?.sourceQuery ?? "");
  const [tags, setTags] = useState<string[]>(model?.tags ?? []);
  const [override, setOverride] = useState<StaleOverrideChoice>(model?.staleOverride ?? "auto");
  const [content, setContent] = useState(model?.content ?? "");

  const dirty =
    !model ||
    name !== model.name ||
    sourceQuery !== model.sourceQuery ||
    content !== model.content ||
    tags.join("\n") !== model.tags.join("\n") ||
    override !== (model.staleOverride ?? "auto");
  // A new model's form counts as changed once something is typed.
  const changed = model ? dirty : name !== "" || sourceQuery !== "" || content !== "" || tags.length > 0;
  // Over a limit the server would refuse it: the button says why instead.
  const overLimit = overLimitReason(
    [
      { label: "the source query", value: sourceQuery, max: LIMITS.questionChars },
      { label: "the content", value: content, max: LIMITS.contentChars },
    ],
    "save",
  );
  const blockedId = useId();
  const contentErrorId = useId();
  const mine: ModelFields = { name, sourceQuery, tags, override, content };
  const editor = useVersionedEditor({
    entity: `mental-model:${bankId}:${model?.id ?? "new"}`,
    baseVersion: model?.version ?? 0,
    fields: mine,
    dirty: changed,
    apply: (d) => {
      setName(d.name);
      setSourceQuery(d.sourceQuery);
      setTags(d.tags);
      setOverride(d.override);
      setContent(d.content);
    },
  });

  const mutation = useMutation({
    mutationFn: (draft: MentalModelDraft) => unwrap(save(draft)),
    onSuccess: (saved) => {
      editor.settled();
      onHold?.(false);
      if (model) router.refresh();
      else router.push(mentalModelHref(bankId, saved.id));
    },
    onError: (err) => {
      // The page (Versions, header) shows the version someone else saved; this form keeps the edit.
      if (model && isAppError(err, "conflict")) {
        onHold?.(true);
        router.refresh();
      }
    },
  });
  const error = mutation.error;
  const conflict = isAppError(error, "conflict") ? error : null;
  const newer = conflict ? conflictCurrent(conflict, MentalModelDetail) : undefined;
  // Held on an older version after a conflict, a save would only conflict again: say what to do.
  const superseded =
    model && newer && newer.version > model.version
      ? `Version ${newer.version} was saved meanwhile: load it or re-apply your edit on it (above) to save.`
      : null;
  const blocked = overLimit ?? superseded;
  const fieldErrors = isAppError(error) ? (error.details.fieldErrors ?? {}) : {};
  const merge = model && newer ? threeWayMerge(fieldsOf(model), mine, fieldsOf(newer)) : null;
  const reapplyOffer =
    merge && newer
      ? {
          pending: mutation.isPending,
          overlap: merge.ok ? [] : merge.overlap.map((k) => (k === "sourceQuery" ? "source query" : k)),
          preview: merge.ok ? conflictFields(SPEC, merge.merged, fieldsOf(newer)) : [],
          run: () => {
            if (!merge.ok || !model) return;
            const m = merge.merged;
            mutation.mutate({
              bankId,
              id: model.id,
              expectedVersion: newer.version,
              name: m.name,
              sourceQuery: m.sourceQuery,
              content: m.content,
              tags: m.tags,
              staleOverride: m.override,
            });
          },
        }
      : undefined;

  return (
    <VersionedEditorForm
      testId="mental-model-editor"
      editor={editor}
      spec={SPEC}
      mine={mine}
      conflict={
        conflict
          ? {
              message: conflict.message,
              newer: newer ? { version: newer.version, fields: fieldsOf(newer) } : null,
              onLoadNewer: () => {
                onHold?.(false);
                router.refresh();
              },
              reapply: reapplyOffer,
            }
          : null
      }
      onSubmit={() =>
        mutation.mutate({
          bankId,
          id: model?.id,
          expectedVersion: model?.version ?? 0,
          name,
          sourceQuery,
          content,
          tags,
          staleOverride: override,
        })
      }
    >
      <div className="grid grid-cols-2 gap-3">
        <Field label="Name" error={fieldErrors.name}>
          <Input
            className="w-full"
            value={name}
            onChange={(e) => setName(e.target.value)}
            data-testid="model-name"
            aria-label="Name"
          />
        </Field>
        <Field label="Tags (scope of the freshness check)" error={fieldErrors.tags}>
          <ChipInput label="Tags" values={tags} onChange={setTags} placeholder="e.g. launch" testId="model-tags" />
        </Field>
        <div className="col-span-2">
          <Field
            label="Source query (what a refresh asks reflect)"
            error={fieldErrors.sourceQuery}
            counter={<CharCount value={sourceQuery} max={LIMITS.questionChars} testId="source-query-count" />}
          >
            <Input
              className="w-full"
              value={sourceQuery}
              onChange={(e) => setSourceQuery(e.target.value)}
              data-testid="model-source-query"
              aria-label="Source query"
            />
          </Field>
        </div>
      </div>
      <fieldset>
        <legend className="mb-1 text-2xs text-slate-500 uppercase tracking-wide">Staleness</legend>
        <div className="flex gap-1" data-testid="stale-override">
          {OVERRIDES.map((o) => (
            <label
              key={o.value}
              title={o.hint}
              className={`cursor-pointer rounded border px-2 py-0.5 text-xs has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-indigo-600 ${
                override === o.value
                  ? "border-indigo-300 bg-indigo-50 text-indigo-800"
                  : "border-slate-300 bg-white text-slate-600 hover:bg-slate-50"
              }`}
            >
              <Check
                type="radio"
                name="staleOverride"
                value={o.value}
                checked={override === o.value}
                onChange={() => setOverride(o.value)}
                className="sr-only"
              />
              {o.label}
            </label>
          ))}
          <span className="self-center pl-2 text-2xs text-slate-500">
            {OVERRIDES.find((o) => o.value === override)?.hint}
          </span>
        </div>
      </fieldset>
      <Tabs defaultValue="write">
        <div className="mb-1 flex items-end gap-1">
          <span className="mr-2 text-2xs text-slate-500 uppercase tracking-wide">Content (markdown)</span>
          <TabList variant="folder" aria-label="Content view">
            {(["write", "preview"] as const).map((t) => (
              <Tab key={t} value={t} variant="folder" data-testid={`content-tab-${t}`}>
                {t}
              </Tab>
            ))}
          </TabList>
        </div>
        <TabPanel value="write">
          <Textarea
            className="h-72 w-full resize-y font-mono leading-relaxed"
            value={content}
            onChange={(e) => setContent(e.target.value)}
            data-testid="model-content"
            aria-label="Content"
            aria-invalid={fieldErrors.content?.length ? true : undefined}
            aria-describedby={fieldErrors.content?.length ? contentErrorId : undefined}
          />
          <CharCount value={content} max={LIMITS.contentChars} testId="content-count" />
        </TabPanel>
        <TabPanel value="preview" className="h-72 overflow-auto rounded border border-slate-300 bg-white p-3">
          <MarkdownPreview markdown={content} />
        </TabPanel>
        {fieldErrors.content?.length ? (
          <p id={contentErrorId} className="mt-0.5 text-2xs text-red-700">
            {fieldErrors.content.join("; ")}
          </p>
        ) : null}
      </Tabs>
      <div className="flex items-center gap-3">
        <SaveVersionButton
          pending={mutation.isPending}
          dirty={dirty}
          blocked={blocked}
          blockedId={blockedId}
          version={model?.version ?? null}
          testId="save-model"
        />
        {model ? <span className="text-2xs text-slate-500">editing version {model.version}</span> : null}
        <OverLimitNote id={blockedId} reason={blocked} />
        {error && !conflict ? (
          <p className="text-xs text-red-700" role="alert" data-testid="save-error">
            {error.message}
          </p>
        ) : null}
      </div>
    </VersionedEditorForm>
  );
}
