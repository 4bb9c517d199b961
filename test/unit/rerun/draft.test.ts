import { describe, expect, it } from "vitest";
import { RerunContext, RerunInput, SaveRerunChangesInput } from "@/lib/contracts/rerun";
import {
  changesOf,
  type Draft,
  draftReducer,
  initialDraft,
  isDirty,
  parseDisposition,
  rerunRequest,
  saveChangesRequest,
  suiteRunRequest,
} from "@/lib/rerun/draft";

const model = (id: string, over: Partial<RerunContext["mentalModels"][number]> = {}) => ({
  id,
  name: `Model ${id}`,
  content: `content of ${id}`,
  version: 3,
  staleOverride: null,
  isStale: false,
  stalenessReason: "fresh",
  usable: true,
  versionSeen: 3,
  draft: null,
  ...over,
});

const context = (over: Partial<RerunContext> = {}): RerunContext =>
  RerunContext.parse({
    run: {
      id: "run-1",
      bankId: "demo",
      question: "When is the launch?",
      budget: "low",
      mode: "synthesize",
      scope: "personal",
      status: "done",
      iterations: 2,
      parentRunId: null,
    },
    skill: {
      id: "sk-1",
      name: "recap",
      version: 2,
      mission: "Summarise.",
      disposition: ["concise", "careful"],
      currentVersion: 4,
      savedMission: "Summarise.",
      savedDisposition: ["concise", "careful"],
    },
    mentalModels: [model("mm-a"), model("mm-b", { staleOverride: "fresh" })],
    scopes: ["personal"],
    ...over,
  });

const act = (d: Draft, ...actions: Parameters<typeof draftReducer>[1][]) => actions.reduce(draftReducer, d);

describe("the re-run draft", () => {
  it("opens as the run was: its inputs, the skill as run, each model's content and override", () => {
    const d = initialDraft(context());
    expect(d).toMatchObject({ question: "When is the launch?", budget: "low", disposition: "concise, careful" });
    expect(d.models["mm-a"]).toEqual({ content: "content of mm-a", override: "none" });
    expect(d.models["mm-b"]).toEqual({ content: "content of mm-b", override: "fresh" });
    expect(isDirty(context(), d)).toBe(false);
    expect(changesOf(context(), d)).toEqual({ edits: [], skillChanged: false });
  });

  it("re-opens a model the run read as a draft with that draft, which counts as an edit", () => {
    const data = context({
      mentalModels: [model("mm-a", { draft: { content: "drafted", staleOverride: "stale", baseVersion: 2 } })],
    });
    const d = initialDraft(data);
    expect(d.models["mm-a"]).toEqual({ content: "drafted", override: "stale" });
    expect(changesOf(data, d).edits).toEqual([
      { id: "mm-a", expectedVersion: 3, content: "drafted", staleOverride: "stale" },
    ]);
  });

  it("opening an editor is not a change; typing is, and typing it back is not", () => {
    const data = context();
    const opened = act(initialDraft(data), { type: "toggle-edit", id: "mm-a" });
    expect(opened.editing).toBe("mm-a");
    expect(isDirty(data, opened)).toBe(false);
    const typed = act(opened, { type: "set", field: "question", value: "Other?" });
    expect(isDirty(data, typed)).toBe(true);
    expect(isDirty(data, act(typed, { type: "set", field: "question", value: "When is the launch?" }))).toBe(false);
    expect(act(opened, { type: "toggle-edit", id: "mm-a" }).editing).toBeNull();
  });

  it("lists only what differs: content, override, or both, each with the version it was edited from", () => {
    const data = context();
    const d = act(
      initialDraft(data),
      { type: "model", id: "mm-a", patch: { content: "new text" } },
      { type: "model", id: "mm-b", patch: { override: "none" } },
    );
    expect(changesOf(data, d).edits).toEqual([
      { id: "mm-a", expectedVersion: 3, content: "new text" },
      { id: "mm-b", expectedVersion: 3, staleOverride: null },
    ]);
  });

  it("compares the skill with the saved text, not the text as run, and reads the disposition as words", () => {
    const data = context({
      skill: { ...context().skill!, mission: "Old mission.", savedMission: "Summarise." },
    });
    // As run: "Old mission."; saved now: "Summarise." — typing the saved text is no change.
    expect(changesOf(data, initialDraft(data)).skillChanged).toBe(true);
    const same = act(initialDraft(data), { type: "set", field: "mission", value: "Summarise." });
    expect(changesOf(data, same).skillChanged).toBe(false);
    const spaced = act(same, { type: "set", field: "disposition", value: " concise ,careful, " });
    expect(changesOf(data, spaced).skillChanged).toBe(false);
    expect(parseDisposition(" a, ,b ")).toEqual(["a", "b"]);
  });

  it("a run without a skill never has a skill change and sends no skill text", () => {
    const data = context({ skill: null });
    const d = act(initialDraft(data), { type: "set", field: "mission", value: "anything" });
    expect(changesOf(data, d).skillChanged).toBe(false);
    expect(rerunRequest(data, d)).not.toHaveProperty("mission");
  });
});

describe("the requests a draft becomes", () => {
  const data = context();
  const edited = act(
    initialDraft(data),
    { type: "set", field: "budget", value: "mid" },
    { type: "set", field: "mission", value: "Be brief." },
    { type: "model", id: "mm-a", patch: { content: "new text", override: "stale" } },
    { type: "model", id: "mm-b", patch: { override: "stale" } },
  );

  it("a re-run sends the inputs, the skill as shown against its current version, and every model edit", () => {
    const req = rerunRequest(data, edited);
    expect(RerunInput.safeParse(req).success).toBe(true);
    expect(req).toMatchObject({
      parentRunId: "run-1",
      budget: "mid",
      mission: "Be brief.",
      disposition: ["concise", "careful"],
      skillExpectedVersion: 4,
    });
    expect(req.mentalModelEdits).toHaveLength(2);
  });

  it("saving keeps an override only when ticked, and drops a model whose only change is an unticked override", () => {
    const none = saveChangesRequest(data, edited, new Set());
    expect(SaveRerunChangesInput.safeParse(none).success).toBe(true);
    expect(none.mentalModelEdits).toEqual([{ id: "mm-a", expectedVersion: 3, content: "new text" }]);
    const ticked = saveChangesRequest(data, edited, new Set(["mm-a", "mm-b"]));
    expect(ticked.mentalModelEdits).toEqual([
      { id: "mm-a", expectedVersion: 3, content: "new text", staleOverride: "stale" },
      { id: "mm-b", expectedVersion: 3, staleOverride: "stale" },
    ]);
    expect(ticked).toMatchObject({ mission: "Be brief.", skillExpectedVersion: 4 });
  });

  it("saving an unchanged skill sends no skill text", () => {
    const onlyModel = act(initialDraft(data), { type: "model", id: "mm-a", patch: { content: "x" } });
    expect(saveChangesRequest(data, onlyModel, new Set())).not.toHaveProperty("mission");
  });

  it("a suite run carries the edits without versions and the skill only when it changed", () => {
    const req = suiteRunRequest(data, edited, "smoke");
    expect(req).toMatchObject({ bankId: "demo", suite: "smoke" });
    expect(req.config?.skill).toEqual({ name: "recap", mission: "Be brief.", disposition: ["concise", "careful"] });
    expect(req.config?.mentalModels).toEqual([
      { id: "mm-a", content: "new text", staleOverride: "stale" },
      { id: "mm-b", staleOverride: "stale" },
    ]);
    expect(suiteRunRequest(data, initialDraft(data), "smoke").config?.skill).toBeUndefined();
  });
});
