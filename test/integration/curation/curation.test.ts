/**
 * The curation services on the demo bank in a real libSQL file: every save is a version with a
 * diff, stale saves are refused without writing, and "refresh now" stores a reflect answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { getMentalModel, getMentalModelVersions } from "@/db/queries/mental-models";
import { getRun, getRunEvents } from "@/db/queries/runs";
import { getSkill } from "@/db/queries/skills";
import { type AppError, isAppError } from "@/lib/contracts/errors";
import { type MentalModelDetail, MentalModelDraft } from "@/lib/contracts/mental-models";
import { NewSkillInput, SkillDraft } from "@/lib/contracts/skills";
import { createOfflineModel } from "@/lib/llm";
import { defineAction } from "@/lib/server/http/action";
import { ensureDemoBank } from "@/lib/server/runtime/db";
import {
  deleteMentalModelById,
  getMentalModelPage,
  listMentalModelRows,
  restoreMentalModelVersion,
  saveMentalModelDraft,
} from "@/lib/server/services/mental-models";
import { acceptRefresh, discardRefresh, refreshMentalModel } from "@/lib/server/services/refresh";
import { startRun, toRunListItem } from "@/lib/server/services/runs";
import {
  createBankSkill,
  deleteBankSkill,
  getSkillPage,
  saveSkillDraft,
  trySkillDraft,
} from "@/lib/server/services/skills";
import { done, followForced, reply, ScriptedModel } from "../../fixtures/scripted-model";
import { openTempDb } from "../db/temp-db";

let db: Db;
let cleanup: () => void;

beforeAll(async () => {
  ({ db, cleanup } = await openTempDb("curation"));
  await ensureDemoBank(db);
});
afterAll(() => cleanup());

/** The editor's draft of a model, validated as the save action would. */
function draftOf(m: MentalModelDetail, patch: Partial<MentalModelDraft> = {}) {
  return MentalModelDraft.parse({
    bankId: m.bankId,
    id: m.id,
    expectedVersion: m.version,
    name: m.name,
    sourceQuery: m.sourceQuery,
    content: m.content,
    tags: m.tags,
    staleOverride: m.staleOverride ?? "auto",
    ...patch,
  });
}

async function pageOf(id: string) {
  const page = await getMentalModelPage(db, "demo", id);
  if (!page) throw new Error(`no model ${id}`);
  return page;
}

describe("mental model versions", () => {
  it("keeps every save as a version and diffs each against the one before", async () => {
    const before = (await pageOf("mm-pricing")).model;
    const saved = await saveMentalModelDraft(
      db,
      draftOf(before, {
        content: `${before.content}\n- Enterprise tier needs a sales call.`,
        tags: ["pricing", "sales"],
      }),
    );
    expect(saved.version).toBe(before.version + 1);

    const page = await pageOf("mm-pricing");
    expect(page.versions.map((v) => v.version).slice(0, 2)).toEqual([saved.version, before.version]);
    expect(page.versions.at(-1)?.changes).toEqual([]);
    const latest = page.versions[0];
    const content = latest?.changes.find((c) => c.field === "content");
    expect(content?.kind).toBe("text");
    if (content?.kind !== "text") return;
    expect(content.ops.filter((o) => o.op === "add").map((o) => o.text)).toEqual([
      "- Enterprise tier needs a sales call.",
    ]);
    expect(content.ops.some((o) => o.op === "remove")).toBe(false);
    expect(latest?.changes.find((c) => c.field === "tags")).toMatchObject({
      kind: "value",
      before: "pricing",
      after: "pricing, sales",
    });
  });

  it("stores a staleness-only change as a new version that forces the badge", async () => {
    const before = (await pageOf("mm-launch-plan")).model;
    expect(before.state).toBe("stale");
    const saved = await saveMentalModelDraft(db, draftOf(before, { staleOverride: "fresh" }));
    expect(saved.version).toBe(before.version + 1);
    expect(saved.state).toBe("overridden_fresh");
    expect(saved.content).toBe(before.content);
    const back = await saveMentalModelDraft(db, draftOf(saved, { staleOverride: "auto" }));
    expect(back.state).toBe("stale");
    const [latest] = (await pageOf("mm-launch-plan")).versions;
    expect(latest?.changes).toEqual([{ field: "staleness override", kind: "value", before: "fresh", after: "auto" }]);
  });

  it("a save that changes nothing makes no new version", async () => {
    const page = await pageOf("mm-pricing");
    const saved = await saveMentalModelDraft(db, draftOf(page.model));
    expect(saved.version).toBe(page.model.version);
    expect(await getMentalModelVersions(db, "demo", "mm-pricing")).toHaveLength(page.versions.length);
  });

  it("refuses a save based on an older version and changes nothing", async () => {
    const loaded = (await pageOf("mm-sso-rollout")).model;
    const otherTab = await saveMentalModelDraft(db, draftOf(loaded, { content: "Other tab's content" }));

    // The plain action wrapper: the conflict's newer record travels in the error value.
    const save = defineAction(MentalModelDraft, (d) => saveMentalModelDraft(db, d));
    const result = await save(draftOf(loaded, { content: "My stale edit" }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("conflict");
    expect(result.error.message).toContain(`saved by someone else as version ${otherTab.version}`);
    expect(result.error.current).toMatchObject({ version: otherTab.version, content: "Other tab's content" });

    const now = await getMentalModel(db, "demo", "mm-sso-rollout");
    expect(now?.content).toBe("Other tab's content");
    expect((await getMentalModelVersions(db, "demo", "mm-sso-rollout")).map((v) => v.content)).not.toContain(
      "My stale edit",
    );
  });

  it("creates a model with a unique slug id, never refreshed, and deletes it after", async () => {
    const draft = MentalModelDraft.parse({
      bankId: "demo",
      expectedVersion: 0,
      name: "Launch plan",
      sourceQuery: "What is the launch plan?",
      content: "",
      tags: [],
      staleOverride: "auto",
    });
    const created = await saveMentalModelDraft(db, draft);
    expect(created.id).toBe("mm-launch-plan-2");
    expect(created.version).toBe(1);
    expect(created.state).toBe("unusable");
    expect(created.reason).toBe("never refreshed");
    await deleteMentalModelById(db, { bankId: "demo", id: created.id });
    // A tombstone: the page stays readable (marked deleted), the list no longer shows it.
    expect((await getMentalModelPage(db, "demo", created.id))?.deleted).not.toBeNull();
    expect((await listMentalModelRows(db, "demo")).map((r) => r.id)).not.toContain(created.id);
    const again = await deleteMentalModelById(db, { bankId: "demo", id: created.id }).catch((e: unknown) => e);
    expect(isAppError(again, "not_found")).toBe(true);
    expect((again as AppError).message).toMatch(/does not exist/);
  });

  it("counts the runs whose retrieval returned a model", async () => {
    const count = async () => (await listMentalModelRows(db, "demo")).find((r) => r.id === "mm-pricing")?.readBy;
    const before = await count();
    const { runId, finished } = await startRun(
      db,
      { bankId: "demo", skill: "decisions", question: "Summarize the pricing decisions", mode: "synthesize" },
      { model: createOfflineModel() },
    );
    await finished;
    const events = await getRunEvents(db, runId);
    const read = events.some((e) => e.type === "tool.result" && e.payload.ids.mental_models.includes("mm-pricing"));
    expect(read).toBe(true);
    expect(await count()).toBe((before ?? 0) + 1);
    expect((await pageOf("mm-pricing")).readers.map((r) => r.id)).toContain(runId);
  });
});

describe("refresh now", () => {
  it("proposes the reflect answer without saving, and accepting stores it as a new version based on the cited ids", async () => {
    const before = (await pageOf("mm-customer-pilots")).model;
    const at = new Date("2026-11-02T10:00:00.000Z");
    const proposal = await refreshMentalModel(
      db,
      { bankId: "demo", id: before.id, expectedVersion: before.version },
      { model: createOfflineModel() },
    );
    expect(proposal.usable).toBe(true);
    if (!proposal.usable) return;
    expect(proposal.baseVersion).toBe(before.version);
    expect(proposal.current).toBe(before.content);
    // Proposing saves nothing.
    expect((await pageOf(before.id)).model.version).toBe(before.version);
    const run = await getRun(db, proposal.runId);
    expect(run?.question).toBe(before.sourceQuery);
    expect(run?.budget).toBe("low");
    expect(proposal.proposed).toBe(run?.answer);
    const events = await getRunEvents(db, proposal.runId);
    const started = events.find((e) => e.type === "run.started");
    expect(started?.type === "run.started" && started.payload.enabledTiers).not.toContain("mental_models");

    const saved = await acceptRefresh(
      db,
      { bankId: "demo", id: before.id, runId: proposal.runId, expectedVersion: proposal.baseVersion },
      { now: () => at },
    );
    const cited = [...(run?.citations?.memory_ids ?? []), ...(run?.citations?.observation_ids ?? [])];
    expect(cited.length).toBeGreaterThan(0);
    expect(saved.version).toBe(before.version + 1);
    expect(saved.content).toBe(run?.answer);
    expect([...saved.basedOnIds].sort()).toEqual([...new Set(cited)].sort());
    expect(saved.refreshedAt).toBe(at.toISOString());
    expect(saved.state).toBe("fresh");

    const page = await pageOf(before.id);
    expect(page.versions[0]?.changes.map((c) => c.field)).toEqual(
      expect.arrayContaining(["refreshed", "based on", "content"]),
    );
    expect(page.refreshRuns.map((r) => r.id)).toContain(proposal.runId);

    // Accepting the same proposal again is a conflict: it was proposed from the version before.
    const again = await acceptRefresh(db, {
      bankId: "demo",
      id: before.id,
      runId: proposal.runId,
      expectedVersion: proposal.baseVersion,
    }).catch((e: unknown) => e);
    expect(isAppError(again, "conflict")).toBe(true);
    expect((await pageOf(before.id)).model.version).toBe(before.version + 1);
  });

  it("marks a failed refresh unusable, leaves the content alone, and refuses to accept it", async () => {
    const before = (await pageOf("mm-hiring")).model;
    const broken = new ScriptedModel(() => {
      throw new Error("model unreachable");
    });
    const proposal = await refreshMentalModel(db, { bankId: "demo", id: before.id }, { model: broken });
    expect(proposal.usable).toBe(false);
    if (proposal.usable) return;
    expect(proposal.reason).toMatch(/without a usable answer/);
    expect((await getRun(db, proposal.runId))?.status).toMatch(/failed|degraded|no_evidence/);
    const refused = await acceptRefresh(db, {
      bankId: "demo",
      id: before.id,
      runId: proposal.runId,
      expectedVersion: before.version,
    }).catch((e: unknown) => e);
    expect(isAppError(refused, "invalid_input")).toBe(true);
    const after = (await pageOf(before.id)).model;
    expect(after.version).toBe(before.version);
    expect(after.content).toBe(before.content);
  });

  it("refuses a placeholder answer (§3.5b) even from a run that finished", async () => {
    const before = (await pageOf("mm-pricing")).model;
    const placeholder = new ScriptedModel(followForced("pricing", () => reply(done("*Generating content...*"))));
    const proposal = await refreshMentalModel(db, { bankId: "demo", id: before.id }, { model: placeholder });
    expect(proposal.usable).toBe(false);
    const refused = await acceptRefresh(db, {
      bankId: "demo",
      id: before.id,
      runId: proposal.runId,
      expectedVersion: before.version,
    }).catch((e: unknown) => e);
    expect(isAppError(refused, "invalid_input")).toBe(true);
    expect((await pageOf(before.id)).model.version).toBe(before.version);
  });

  it("refuses to accept a run that is not a refresh of this model", async () => {
    const before = (await pageOf("mm-pricing")).model;
    const { runId, finished } = await startRun(
      db,
      { bankId: "demo", question: "Something else entirely?", budget: "low", mode: "synthesize" },
      { model: createOfflineModel() },
    );
    await finished;
    const refused = await acceptRefresh(db, {
      bankId: "demo",
      id: before.id,
      runId,
      expectedVersion: before.version,
    }).catch((e: unknown) => e);
    expect(isAppError(refused, "invalid_input")).toBe(true);
  });
});

describe("what became of each refresh proposal", () => {
  const outcomeOf = async (id: string, runId: string) =>
    (await pageOf(id)).refreshRuns.find((r) => r.id === runId)?.outcomeLabel;

  it("lists refresh runs as open, accepted as vN, discarded, not accepted once the model moved on, or unusable", async () => {
    const id = "mm-launch-plan";
    const propose = async () => {
      const m = (await pageOf(id)).model;
      return refreshMentalModel(
        db,
        { bankId: "demo", id, expectedVersion: m.version },
        { model: createOfflineModel() },
      );
    };
    const open = await propose();
    if (!open.usable) throw new Error("the offline refresh should be usable");
    expect(await outcomeOf(id, open.runId)).toBe("open proposal");

    const discarded = await propose();
    await discardRefresh(db, { bankId: "demo", id, runId: discarded.runId });
    expect(await outcomeOf(id, discarded.runId)).toBe("discarded");
    // Discarding saves nothing.
    expect((await pageOf(id)).model.version).toBe(open.baseVersion);

    const accepted = await propose();
    const saved = await acceptRefresh(db, {
      bankId: "demo",
      id,
      runId: accepted.runId,
      expectedVersion: accepted.baseVersion,
    });
    expect(await outcomeOf(id, accepted.runId)).toBe(`accepted as v${saved.version}`);
    // An accepted proposal cannot be discarded afterwards.
    const late = await discardRefresh(db, { bankId: "demo", id, runId: accepted.runId }).catch((e: unknown) => e);
    expect(isAppError(late, "conflict")).toBe(true);
    expect(await outcomeOf(id, accepted.runId)).toBe(`accepted as v${saved.version}`);
    // The first proposal was never decided and the model moved on: it is no longer open.
    expect(await outcomeOf(id, open.runId)).toBe(`not accepted (proposed on v${open.baseVersion})`);
    expect(await outcomeOf(id, discarded.runId)).toBe("discarded");

    const broken = new ScriptedModel(() => {
      throw new Error("model unreachable");
    });
    const failed = await refreshMentalModel(db, { bankId: "demo", id }, { model: broken });
    expect((await getRun(db, failed.runId))?.status).toBe("failed");
    expect(await outcomeOf(id, failed.runId)).toBe("not used (unusable: failed)");
    const placeholder = new ScriptedModel(followForced("launch", () => reply(done("*Generating content...*"))));
    const empty = await refreshMentalModel(db, { bankId: "demo", id }, { model: placeholder });
    // The output guard catches the placeholder (issue 27): the run degrades to a digest, never a summary.
    expect(await outcomeOf(id, empty.runId)).toBe("not used (unusable: no clean answer, only a digest)");
  });

  it("refuses to discard a run that is not a refresh of this model", async () => {
    const { runId, finished } = await startRun(
      db,
      { bankId: "demo", question: "Something else entirely?", budget: "low", mode: "synthesize" },
      { model: createOfflineModel() },
    );
    await finished;
    const refused = await discardRefresh(db, { bankId: "demo", id: "mm-launch-plan", runId }).catch((e: unknown) => e);
    expect(isAppError(refused, "invalid_input")).toBe(true);
  });
});

describe("restore a version", () => {
  it("saves an old version's fields as a new version, and refuses a stale restore", async () => {
    const first = (await pageOf("mm-pricing")).model;
    const edited = await saveMentalModelDraft(db, draftOf(first, { content: "Edited for the restore test." }));
    const restored = await restoreMentalModelVersion(db, {
      bankId: "demo",
      id: first.id,
      version: first.version,
      expectedVersion: edited.version,
    });
    expect(restored.version).toBe(edited.version + 1);
    expect(restored.content).toBe(first.content);
    const stale = await restoreMentalModelVersion(db, {
      bankId: "demo",
      id: first.id,
      version: first.version,
      expectedVersion: edited.version,
    }).catch((e: unknown) => e);
    expect(isAppError(stale, "conflict")).toBe(true);
    const missing = await restoreMentalModelVersion(db, {
      bankId: "demo",
      id: first.id,
      version: 999,
      expectedVersion: restored.version,
    }).catch((e: unknown) => e);
    expect(isAppError(missing, "not_found")).toBe(true);
    expect((await pageOf(first.id)).model.version).toBe(restored.version);
  });
});

describe("skills", () => {
  const skillDraft = async (patch: Partial<SkillDraft> = {}) => {
    const s = await getSkill(db, { bankId: "demo", id: "skill-recap" });
    if (!s) throw new Error("no recap skill");
    return SkillDraft.parse({
      bankId: "demo",
      id: s.id,
      expectedVersion: s.version,
      mission: s.mission,
      disposition: s.disposition,
      retrieval: { tags: s.retrieval.tags, types: s.retrieval.types, scope: s.retrieval.scope },
      budget: s.budget,
      anchorEvery: s.anchorEvery,
      outputFormat: s.outputFormat,
      ...patch,
    });
  };

  it("versions a mission edit with a word diff of the mission", async () => {
    const draft = await skillDraft();
    const saved = await saveSkillDraft(db, {
      ...draft,
      mission: draft.mission.replace("Lead with the outcome", "Open with the decision"),
      disposition: [...draft.disposition, "blunt"],
    });
    expect(saved.version).toBe(draft.expectedVersion + 1);
    const page = await getSkillPage(db, "demo", "skill-recap");
    const mission = page?.versions[0]?.changes.find((c) => c.field === "mission");
    expect(mission?.kind).toBe("text");
    if (mission?.kind !== "text") return;
    expect(mission.ops.filter((o) => o.op === "remove").map((o) => o.text.trim())).toEqual(["Lead", "outcome"]);
    expect(mission.ops.filter((o) => o.op === "add").map((o) => o.text.trim())).toEqual(["Open", "decision"]);
    expect(page?.versions[0]?.changes.find((c) => c.field === "disposition")).toMatchObject({
      after: "concise, chronological, neutral, blunt",
    });
  });

  it("a save that changes nothing makes no new version", async () => {
    const draft = await skillDraft();
    const before = await getSkillPage(db, "demo", "skill-recap");
    const saved = await saveSkillDraft(db, draft);
    expect(saved.version).toBe(draft.expectedVersion);
    expect((await getSkillPage(db, "demo", "skill-recap"))?.versions.length).toBe(before?.versions.length);
  });

  it("refuses a stale skill save and returns the newer skill", async () => {
    const stale = await skillDraft();
    const newer = await saveSkillDraft(db, { ...stale, budget: "high" });
    const err = await saveSkillDraft(db, { ...stale, mission: "Lost edit" }).catch((e: unknown) => e);
    expect(isAppError(err, "conflict")).toBe(true);
    expect((err as AppError<"conflict">).details.current).toMatchObject({ version: newer.version });
    expect((await getSkill(db, { bankId: "demo", id: "skill-recap" }))?.mission).not.toBe("Lost edit");
  });

  it("tries a draft in a run without saving it", async () => {
    const draft = await skillDraft({ mission: "Answer in exactly one sentence.", budget: "low" });
    const { runId, finished } = await trySkillDraft(
      db,
      { draft, question: "What did we decide about the launch date?" },
      { model: createOfflineModel() },
    );
    await finished;
    const events = await getRunEvents(db, runId);
    const started = events.find((e) => e.type === "run.started");
    expect(started?.type === "run.started" && started.payload.skill.mission).toBe("Answer in exactly one sentence.");
    // The snapshot is marked as a draft based on the loaded version, never read as that version.
    expect(started?.type === "run.started" && started.payload.skill.draft).toBe(true);
    const run = await getRun(db, runId);
    expect(run?.skillSnapshot?.draft).toBe(true);
    expect(run?.skillSnapshot?.version).toBe(draft.expectedVersion);
    expect(run && toRunListItem(run).skillDraft).toBe(true);
    expect(run?.budget).toBe("low");
    const saved = await getSkill(db, { bankId: "demo", id: "skill-recap" });
    expect(saved?.mission).not.toBe("Answer in exactly one sentence.");
    expect(saved?.version).toBe(draft.expectedVersion);
  });
});

describe("skills create and delete", () => {
  it("creates with the API's rules and deletes", async () => {
    const created = await createBankSkill(
      db,
      NewSkillInput.parse({
        bankId: "demo",
        skill: { name: "briefing", mission: "Brief a newcomer.", retrieval: { types: ["observation"] } },
      }),
    );
    expect(created.version).toBe(1);
    expect(created.mission).toBe("Brief a newcomer.");
    const taken = await createBankSkill(
      db,
      NewSkillInput.parse({
        bankId: "demo",
        skill: { name: "briefing", mission: "x", retrieval: { types: ["observation"] } },
      }),
    ).catch((e: unknown) => e);
    expect(isAppError(taken)).toBe(true);
    expect(await deleteBankSkill(db, { bankId: "demo", id: created.id })).toEqual({ deleted: true });
    expect(await getSkillPage(db, "demo", created.id)).toBeNull();
    const again = await deleteBankSkill(db, { bankId: "demo", id: created.id }).catch((e: unknown) => e);
    expect(isAppError(again, "not_found")).toBe(true);
  });
});
