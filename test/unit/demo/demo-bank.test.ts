import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildDemoBundle, DEMO_BANK_PATH, renderDemoBundle } from "@/db/demo/generate";
import { Bundle } from "@/lib/contracts/bundle";

const raw = readFileSync(DEMO_BANK_PATH, "utf8");
const bundle = Bundle.parse(JSON.parse(raw));

type Model = Bundle["mentalModels"][number];
const PLACEHOLDER = /^(generating content\.*|\.\.\.|…)?$/i;

/** docs/engine.md#memory-model staleness, written out independently of the engine. */
function staleness(model: Model): {
  stale: boolean;
  reason: "manual override" | "never refreshed" | "newer memories" | "";
} {
  if (model.staleOverride) return { stale: model.staleOverride === "stale", reason: "manual override" };
  if (model.refreshedAt === null) return { stale: true, reason: "never refreshed" };
  const refreshed = Date.parse(model.refreshedAt);
  const inScope = (tags: string[]) => model.tags.every((t) => tags.includes(t));
  const newer = [
    ...bundle.facts.filter((f) => inScope(f.tags)).map((f) => f.updatedAt ?? f.recordedAt),
    ...bundle.observations.filter((o) => inScope(o.tags)).map((o) => o.updatedAt),
  ].filter((t) => Date.parse(t) > refreshed);
  return newer.length > 0 ? { stale: true, reason: "newer memories" } : { stale: false, reason: "" };
}

const usable = (model: Model) => !PLACEHOLDER.test(model.content.trim());
const model = (name: string) => bundle.mentalModels.find((m) => m.name === name)!;

describe("demo bank", () => {
  it("is exactly what the generator writes, so the committed file never drifts from its source", () => {
    expect(raw).toBe(renderDemoBundle());
    expect(JSON.parse(raw)).toEqual(buildDemoBundle());
  });

  it("builds the same bundle on every run", () => {
    expect(renderDemoBundle(buildDemoBundle())).toBe(renderDemoBundle(buildDemoBundle()));
  });

  it("holds a realistic amount of memory in the demo bank", () => {
    expect(bundle.bank).toEqual({ id: "demo", name: "Northwind Atlas — product team", permittedTeams: ["platform"] });
    expect(bundle.facts.length).toBeGreaterThanOrEqual(150);
    expect(bundle.observations.length).toBeGreaterThanOrEqual(30);
    expect(bundle.mentalModels.length).toBeGreaterThanOrEqual(8);
    expect(bundle.skills.map((s) => s.name).sort()).toEqual(["actionables", "blockers", "decisions", "prep", "recap"]);
  });

  it("uses unique ids and only cites facts that exist", () => {
    const all = [...bundle.facts, ...bundle.observations, ...bundle.mentalModels, ...bundle.skills].map((x) => x.id);
    expect(new Set(all).size).toBe(all.length);
    const factIds = new Set(bundle.facts.map((f) => f.id));
    for (const o of bundle.observations) {
      expect(o.sourceFactIds.length).toBeGreaterThan(0);
      for (const id of o.sourceFactIds) expect(factIds, `${o.id} cites ${id}`).toContain(id);
    }
    for (const m of bundle.mentalModels)
      for (const id of [...m.basedOnIds, ...m.history.flatMap((h) => h.basedOnIds)]) expect(factIds).toContain(id);
  });

  it("keeps every timestamp plausible: recorded at or after it happened, edits after recording", () => {
    for (const f of bundle.facts) {
      if (f.occurredAt) expect(Date.parse(f.recordedAt), f.id).toBeGreaterThanOrEqual(Date.parse(f.occurredAt));
      if (f.occurredAt) expect(Date.parse(f.recordedAt) - Date.parse(f.occurredAt), f.id).toBeLessThan(2 * 86_400_000);
      if (f.updatedAt) expect(Date.parse(f.updatedAt), f.id).toBeGreaterThan(Date.parse(f.recordedAt));
    }
    expect(bundle.facts.filter((f) => f.updatedAt).length).toBeGreaterThanOrEqual(3);
    expect(bundle.facts.some((f) => f.documentId?.startsWith("doc-weekly-"))).toBe(true);
  });

  it("mixes personal, permitted-team and forbidden-team memories", () => {
    const scopes = [...bundle.facts, ...bundle.observations].map((x) => x.scope);
    expect(scopes.filter((s) => s === "personal").length).toBeGreaterThan(scopes.length / 2);
    expect(scopes).toContain("team:platform");
    expect(scopes).toContain("team:finance");
    expect(bundle.bank.permittedTeams).not.toContain("finance");
    // A leak of finance memories must be visible in an answer: they carry dollar figures.
    for (const f of bundle.facts.filter((x) => x.scope === "team:finance")) expect(f.text).toMatch(/\$\d/);
  });

  it("covers each headline demo question with facts that share its keywords", () => {
    const personal = bundle.facts.filter((f) => f.scope === "personal").map((f) => f.text.toLowerCase());
    const has = (...words: string[]) => personal.some((t) => words.every((w) => t.includes(w)));
    expect(has("decide", "launch date", "october 20")).toBe(true);
    expect(has("sso rollout", "block")).toBe(true);
    expect(has("action item", "tomás", "november")).toBe(true);
    expect(has("acme logistics", "pilot", "said")).toBe(true);
    expect(has("pricing decision")).toBe(true);
    expect(has("october incident")).toBe(true);
  });

  it("has mental models in every freshness state the inspector shows", () => {
    const states = bundle.mentalModels.map((m) => ({ name: m.name, ...staleness(m), usable: usable(m) }));
    const fresh = states.filter((s) => !s.stale && s.usable);
    const staleByMemories = states.filter((s) => s.reason === "newer memories");
    expect(fresh.length).toBeGreaterThanOrEqual(2);
    expect(staleByMemories.length).toBeGreaterThanOrEqual(2);
    expect(states.filter((s) => s.reason === "never refreshed").length).toBeGreaterThanOrEqual(1);
    expect(states.filter((s) => s.reason === "manual override").length).toBeGreaterThanOrEqual(1);
    expect(states.filter((s) => !s.usable).length).toBeGreaterThanOrEqual(1);
  });

  it("gives the named mental models the freshness the demo script relies on", () => {
    expect(staleness(model("Launch plan"))).toMatchObject({ stale: true, reason: "newer memories" });
    expect(model("Launch plan").content).toContain("October 6");
    expect(staleness(model("SSO rollout"))).toMatchObject({ stale: true, reason: "newer memories" });
    expect(staleness(model("Pricing")).stale).toBe(false);
    expect(staleness(model("Team & owners")).stale).toBe(false);
    expect(model("Team & owners").tags).toEqual([]);
    expect(staleness(model("Customer pilots")).stale).toBe(false);
    expect(staleness(model("Quality & flaky tests"))).toEqual({ stale: false, reason: "manual override" });
    expect(staleness(model("Data pipeline migration"))).toEqual({ stale: true, reason: "never refreshed" });
    expect(usable(model("Incident review"))).toBe(false);
  });

  it("ships the five default skills with prose missions and their retrieval directives", () => {
    const skill = (name: string) => bundle.skills.find((s) => s.name === name)!;
    for (const s of bundle.skills) {
      expect(s.id).toBe(`skill-${s.name}`);
      expect(s.mission).not.toMatch(/\d/);
      expect(s.disposition.length).toBeGreaterThanOrEqual(2);
      expect(s.retrieval.scope).toBe("personal");
    }
    expect(skill("decisions").retrieval).toMatchObject({ tags: ["decision"], types: ["observation", "episodic"] });
    expect(skill("actionables").retrieval).toMatchObject({ tags: ["action-item"], types: ["episodic"] });
    expect(skill("blockers").retrieval).toMatchObject({ tags: ["blocker"], types: ["observation", "episodic"] });
    expect(skill("recap").retrieval.tags).toEqual([]);
    expect(skill("prep")).toMatchObject({ budget: "low", retrieval: { tags: [] } });
  });
});
